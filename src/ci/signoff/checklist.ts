/**
 * The sign-off checklist: the template in docs/PR_REVIEW_CHECKLIST.md (the fenced block under
 * "## Template"), a sign-off comment as posted, and how the two compare.
 */

/** The phrase that opens a sign-off; the workflow runs only for comments that carry it. */
export const SIGNOFF_PHRASE = 'As a PR reviewer and CODEOWNER';

const PLACEHOLDER_DETAIL = 'insert any additional info here';
const PLACEHOLDER_SIGNATURE = 'FILL_IN_GITHUB_USERNAME';

export interface ChecklistItem {
  text: string;
  /** Nesting: 0 for a top-level item, 1 for a sub-item, … */
  depth: number;
  checked: boolean;
  /** 1-based line in the text it was read from. */
  line: number;
}

export interface Checklist {
  items: ChecklistItem[];
  /** The "Additional detail section" lines, placeholder and blank lines dropped. */
  details: string[];
  /** What follows "Signed:", backticks dropped; '' when absent or still the placeholder. */
  signed: string;
}

const ITEM = /^(\s*)[-*+] \[([ xX])\]\s+(.*)$/;

/** A checklist as written: its items, its additional detail and its signature. */
export function parseChecklist(text: string): Checklist {
  const items: ChecklistItem[] = [];
  const details: string[] = [];
  let signed = '';
  let inDetails = false;
  text.split(/\r?\n/).forEach((raw, i) => {
    const signature = /^\s*Signed:\s*(.*)$/i.exec(raw);
    if (signature) {
      inDetails = false;
      const name = signature[1]!.replace(/`/g, '').trim();
      signed = name === PLACEHOLDER_SIGNATURE ? '' : name;
      return;
    }
    if (/additional detail section/i.test(raw) && !ITEM.test(raw)) {
      inDetails = true;
      return;
    }
    if (inDetails) {
      const line = raw.replace(/^\s*[-*+]\s+/, '').trim();
      if (line !== '' && line !== '```' && line.toLowerCase() !== PLACEHOLDER_DETAIL) details.push(line);
      return;
    }
    const m = ITEM.exec(raw);
    if (m)
      items.push({
        text: m[3]!.trim(),
        depth: Math.floor(m[1]!.replace(/\t/g, '  ').length / 2),
        checked: m[2] !== ' ',
        line: i + 1,
      });
  });
  return { items, details, signed };
}

/** The template's text: the first fenced block after the "## Template" heading. */
export function templateBlock(markdown: string): string | undefined {
  const m = /^##\s+Template\s*$([\s\S]*?)^```[^\n]*\n([\s\S]*?)^```/m.exec(markdown);
  return m?.[2];
}

/** Words of an item, markup dropped: links keep their text, code and emphasis lose their marks. */
export function normalizeItem(text: string): string {
  return text
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/https?:\/\/\S+/g, ' ')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** How alike two normalized items are: the Dice coefficient of their word sets. */
function similarity(a: string, b: string): number {
  const wa = new Set(a.split(' '));
  const wb = new Set(b.split(' '));
  let common = 0;
  for (const w of wa) if (wb.has(w)) common++;
  return (2 * common) / (wa.size + wb.size);
}

/** Items this alike are the same item with its wording drifted (a typo fixed, a word added). */
const SAME_ITEM = 0.8;

export interface ChecklistComparison {
  /** Template items the sign-off does not carry. */
  missing: ChecklistItem[];
  /** Sign-off items no longer in the template (an old copy). */
  stale: ChecklistItem[];
  /** Template items the sign-off carries unchecked (the sign-off's item). */
  unchecked: ChecklistItem[];
}

/** Pair the sign-off's items with the template's: exact words first, then the most alike above SAME_ITEM. */
export function compareChecklist(template: Checklist, signoff: Checklist): ChecklistComparison {
  const wanted = template.items.map((item) => ({ item, words: normalizeItem(item.text) }));
  const posted = signoff.items.map((item) => ({ item, words: normalizeItem(item.text), used: false }));
  const matchOf = new Map<number, (typeof posted)[number]>();
  wanted.forEach((w, i) => {
    const exact = posted.find((p) => !p.used && p.words === w.words);
    if (exact) {
      exact.used = true;
      matchOf.set(i, exact);
    }
  });
  wanted.forEach((w, i) => {
    if (matchOf.has(i)) return;
    let best: (typeof posted)[number] | undefined;
    let score = SAME_ITEM;
    for (const p of posted) {
      if (p.used) continue;
      const s = similarity(w.words, p.words);
      if (s >= score) [best, score] = [p, s];
    }
    if (best) {
      best.used = true;
      matchOf.set(i, best);
    }
  });
  return {
    missing: wanted.filter((_, i) => !matchOf.has(i)).map((w) => w.item),
    stale: posted.filter((p) => !p.used).map((p) => p.item),
    unchecked: [...matchOf.values()].filter((p) => !p.item.checked).map((p) => p.item),
  };
}
