/**
 * The output formats built from a conversion's summary alone (`from: 'summary'` or
 * `'summary+pages'` in requestModel.ts `OUTPUT_FORMATS`): their text, written once for the
 * backend's dispatcher (server/export/output.ts `renderOutput`) and the extension's
 * (src/commands/exportFile.ts), which sends only the page formats to `folio/export`.
 */
import type { ConvertSummary } from './protocol';
import type { OutputFormat, PagesFormat } from './requestModel';

export type SummaryFormat = Exclude<OutputFormat, PagesFormat>;

/** The file's text. `json` writes the summary as given: the caller attaches the page results. */
export function summaryOutput(format: SummaryFormat, summary: ConvertSummary): string {
  switch (format) {
    case 'md':
      return summary.markdown;
    case 'doctags':
      return summary.doctags + '\n';
    case 'json':
      return JSON.stringify(summary, null, 2) + '\n';
  }
}
