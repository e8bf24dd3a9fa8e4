/**
 * protocol.ts builds its message types on first read (issue 22's start-up): they must still be
 * the library's own classes, with their method, the same object on every read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { NotificationType, ProgressType, RequestType } from 'vscode-languageserver-protocol';
import {
  ConvertRequest,
  ExportRequest,
  LogNotification,
  PagePartialNotification,
  PullModelRequest,
  ReparseRegionRequest,
} from '../../common/protocol';

test('message types are the library classes with their method, built once', () => {
  for (const ns of [ConvertRequest, ReparseRegionRequest, ExportRequest, PullModelRequest]) {
    assert.ok(ns.type instanceof RequestType, ns.method);
    assert.equal(ns.type.method, ns.method);
    assert.equal(ns.type, ns.type, 'the same object on every read');
  }
  for (const ns of [LogNotification, PagePartialNotification]) {
    assert.ok(ns.type instanceof NotificationType, ns.method);
    assert.equal(ns.type.method, ns.method);
  }
  assert.ok(ConvertRequest.partialResult instanceof ProgressType);
  assert.equal(ConvertRequest.partialResult, ConvertRequest.partialResult);
});
