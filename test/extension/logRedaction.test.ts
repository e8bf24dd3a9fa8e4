/**
 * Issue 34 / E5: with the "Folio" output channel at Trace and `folio.trace.server: "verbose"`,
 * the language client logged `folio/convert`'s parameters in full: the PDF password and
 * `options.remoteVlm.apiKey`. The channel Folio gives the client (and uses itself) now redacts
 * them. The trace here is vscode-jsonrpc's real one, over a real connection pair; the channel is
 * a recorder with the LogOutputChannel methods the client calls, and the tracer passes messages to
 * it as vscode-languageclient's does (`trace(message + "\n" + data)`, `traceObject` = JSON).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import {
  createMessageConnection,
  StreamMessageReader,
  StreamMessageWriter,
  Trace,
  TraceFormat,
  type MessageConnection,
} from 'vscode-jsonrpc/node';
import * as redaction from '../../src/logRedaction';

const PASSWORD = 'correct horse "battery" \\ staple';
const API_KEY = 'sk-live-5f2c1d0e9a8b7c6d';

/** Records what reaches the output channel (the LogOutputChannel methods vscode-languageclient uses). */
class RecordingChannel {
  lines: string[] = [];
  logLevel = 1;
  trace(m: string) {
    this.lines.push(m);
  }
  info(m: string) {
    this.lines.push(m);
  }
  error(m: string | Error) {
    this.lines.push(String(m));
  }
  appendLine(m: string) {
    this.lines.push(m);
  }
}

function pair(): { client: MessageConnection; server: MessageConnection } {
  const up = new PassThrough();
  const down = new PassThrough();
  const client = createMessageConnection(new StreamMessageReader(down), new StreamMessageWriter(up));
  const server = createMessageConnection(new StreamMessageReader(up), new StreamMessageWriter(down));
  server.onRequest('folio/convert', (p: { password?: string }) => ({ pages: 1, sawPassword: p.password === PASSWORD }));
  server.listen();
  client.listen();
  return { client, server };
}

async function traced(format: TraceFormat): Promise<string> {
  const recorder = new RecordingChannel();
  // What src/client.ts passes as outputChannel and traceOutputChannel.
  const channel = redaction.redactingLog(recorder);
  const { client, server } = pair();
  await client.trace(
    Trace.Verbose,
    {
      log: (m: string | object, data?: string) =>
        typeof m === 'string' ? channel.trace(data ? `${m}\n${data}` : m) : channel.trace(JSON.stringify(m)),
    },
    { sendNotification: false, traceFormat: format },
  );
  const result = await client.sendRequest('folio/convert', {
    uri: 'file:///ws/locked.pdf',
    password: PASSWORD,
    options: { engine: 'vlm', remoteVlm: { url: 'https://vlm.example/v1', model: 'm', apiKey: API_KEY } },
  });
  // The backend still gets the real values: only the log is redacted.
  assert.deepEqual(result, { pages: 1, sawPassword: true });
  client.dispose();
  server.dispose();
  return recorder.lines.join('\n');
}

for (const format of [TraceFormat.Text, TraceFormat.JSON]) {
  test(`E5: the verbose JSON-RPC trace (${format}) logs folio/convert without the password and API key`, async () => {
    const log = await traced(format);
    assert.match(log, /folio\/convert/, 'the request was traced');
    assert.match(log, /vlm\.example/, 'with its parameters (the trace is verbose)');
    assert.ok(!log.includes(API_KEY), `API key in the log:\n${log}`);
    assert.ok(!log.includes('battery'), `password in the log:\n${log}`);
    assert.match(log, /"password": ?\\?"\[redacted\]\\?"/);
    assert.match(log, /"apiKey": ?\\?"\[redacted\]\\?"/);
  });
}

test('E5: other log lines: keys in text, known secret values anywhere, Errors; the rest is untouched', () => {
  const recorder = new RecordingChannel();
  const channel = redaction.redactingLog(recorder);
  redaction.addSecret(API_KEY);
  channel.appendLine(`[error] remote VLM refused https://vlm.example/v1?api_key=${API_KEY}&x=1`);
  channel.info(`retrying with key ${API_KEY} (Bearer)`);
  channel.error(new Error(`password: hunter22 was refused`));
  channel.appendLine('[info] Convert PDF: report.pdf to markdown (partialResultToken 7)');
  assert.equal(recorder.lines[0], '[error] remote VLM refused https://vlm.example/v1?api_key=[redacted]&x=1');
  assert.equal(recorder.lines[1], 'retrying with key [redacted] (Bearer)');
  assert.match(recorder.lines[2]!, /^Error: password: \[redacted\] was refused/);
  assert.equal(recorder.lines[3], '[info] Convert PDF: report.pdf to markdown (partialResultToken 7)');
  assert.equal(channel.logLevel, 1, 'the rest of the channel is the channel');
});

test('security round 4, O8: the seven shapes the pattern missed', () => {
  const secret = 'Sup3rS3cretValue';
  const nested3 = JSON.stringify({ a: JSON.stringify({ b: JSON.stringify({ password: secret }) }) });
  const cases = [
    nested3,
    JSON.stringify({ 'X-Api-Key': secret }),
    `sent Authorization Bearer ${secret} to the server`,
    `GET /v1/x?api-key=${secret}&y=1`,
    `{'password': '${secret}'}`,
    `{"password": 738291046}`,
    `{"password": ["${secret}", "x"]}`,
  ];
  for (const c of cases) {
    const out = redaction.redactSecrets(c);
    assert.ok(!out.includes(secret) && !out.includes('738291046'), `${c} → ${out}`);
    assert.match(out, /\[redacted\]/, c);
  }
  // JSON stays JSON at every depth, and what is not a secret stays as it was.
  const back = JSON.parse(JSON.parse(JSON.parse(redaction.redactSecrets(nested3)).a).b) as { password: string };
  assert.equal(back.password, '[redacted]');
  assert.equal(
    redaction.redactSecrets('{"token": 7, "value": {"kind": "report"}}'),
    '{"token": 7, "value": {"kind": "report"}}',
  );
  assert.equal(redaction.redactSecrets('a password was asked for'), 'a password was asked for');
});
