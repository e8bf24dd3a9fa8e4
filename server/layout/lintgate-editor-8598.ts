import * as vscode from 'vscode';

export const v = vscode;
