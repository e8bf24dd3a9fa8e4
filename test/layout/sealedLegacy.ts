/**
 * Sealed pages of the real-world set (eval/realworld/sealed.ts) that rule tests already read
 * before the seal was fixed (issue 40, at 8a6f245): those tests stay, frozen to exactly these ids
 * and pages. Nothing may be added here — a new rule test is written on a working page;
 * `test/eval/sealed.test.ts` fails on any other sealed id or page named under test/.
 */
export const SEALED_IDS_USED_BEFORE_THE_SEAL: ReadonlySet<string> = new Set([
  'acm-small-p1-01',
  'acm-small-p1-02',
  'acm-small-p1-04',
  'aiaa-p1-02',
  'aiaa-p1-03',
  'aiaa-p1-04',
  'aiaa-p1-05',
  'aiaa-p1-07',
  'aip-p1-03',
  'aip-p1-06',
  'aip-p1-07',
  'dragon-newsletter-p1-01',
  'dragon-newsletter-p1-02',
  'dragon-newsletter-p1-03',
  'dragon-newsletter-p1-04',
  'dragon-newsletter-p1-05',
  'dragon-newsletter-p1-07',
  'dragon-newsletter-p1-09',
  'foersom-form-p1-01',
  'geotopo-p1-03',
  'insec-p4-01',
  'insec-p4-02',
  'insec-p4-03',
  'insurance-cert-p1-02',
  'insurance-cert-p1-03',
  'insurance-cert-p1-04',
  'mnras-p1-05',
  'moran-p1-07',
  'moran-p1-10',
  'moran-p6-01',
  'moran-p6-02',
  'moran-p6-03',
  'moran-p6-04',
  'opensans-doc-p1-01',
  'opensans-doc-p1-02',
  'opensans-doc-p1-03',
  'opensans-doc-p1-04',
  'sprouts-p1-01',
  'sprouts-p1-02',
  'sprouts-p1-03',
  'sprouts-p1-04',
  'teckit-lang-p1-01',
  'teckit-lang-p1-02',
  'teckit-lang-p1-03',
  'teckit-lang-p1-08',
  'ua-coursetext-p2-01',
  'ua-coursetext-p2-02',
  'wikipedia-pdfjs-p1-10',
]);

/** Sealed pages that rule tests cut by their source and page (not by a test id) before the seal. */
export const SEALED_PAGES_USED_BEFORE_THE_SEAL: ReadonlySet<string> = new Set([
  'corpus/pdfjs-test-pdfs/bug1883609.pdf#1',
  'debian/bzip2-manual#5',
  'debian/els-cas-dc#1',
  'debian/teckit-binary-format#3',
]);

/** Sealed pages whose tests rule tests select by an id prefix (`moran-p1-` + digits) before the seal. */
export const SEALED_ID_PREFIXES_USED_BEFORE_THE_SEAL: ReadonlySet<string> = new Set([
  'bzip2-p10-',
  'moran-p1-',
  'tracemonkey-p1-',
]);
