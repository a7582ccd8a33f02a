/**
 * MATH-style answers: the last `\boxed{…}` of a solution, and a normal form so that `\dfrac{1}{2}`,
 * `\frac12`, `0.5`, `1/2` and `\boxed{\frac{1}{2}}` compare equal. After Hendrycks et al.'s `strip_string`
 * (the MATH benchmark's own equivalence check), which the published MATH-500 scores use.
 */

/** The contents of the last `\boxed{…}` (or `\fbox{…}`), braces balanced; undefined when there is none. */
export function lastBoxed(text: string): string | undefined {
  const start = Math.max(text.lastIndexOf('\\boxed'), text.lastIndexOf('\\fbox'));
  if (start < 0) return undefined;
  const open = text.indexOf('{', start);
  if (open < 0) {
    // `\boxed 5`: the MATH solutions use this form too.
    const bare = /^\\boxed\s+([^\s$]+)/.exec(text.slice(start));
    return bare?.[1];
  }
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '{') depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(open + 1, i);
  }
  return undefined;
}

/** `\frac12` → `\frac{1}{2}`, `\frac1{23}` → `\frac{1}{23}`. */
function fixFracs(text: string): string {
  return text
    .replace(/\\frac\s*([^{\s\\])\s*([^{\s\\])/g, '\\frac{$1}{$2}')
    .replace(/\\frac\s*([^{\s\\])\s*\{/g, '\\frac{$1}{');
}

/** `\sqrt3` → `\sqrt{3}`. */
function fixSqrt(text: string): string {
  return text.replace(/\\sqrt\s*([^{\s\\])/g, '\\sqrt{$1}');
}

/** Drops a trailing unit written as `\text{ cm}` / `\mbox{ inches}`, as MATH's checker does. */
function removeRightUnits(text: string): string {
  const at = text.search(/\\(?:text|mbox)\{\s/);
  return at > 0 ? text.slice(0, at) : text;
}

/** A normal form for comparing MATH answers; two answers are equal when their normal forms are. */
export function normalizeMathAnswer(answer: string): string {
  let s = answer.trim();
  const boxed = lastBoxed(s);
  if (boxed !== undefined) s = boxed;
  s = s
    .replace(/\n/g, '')
    .replace(/\\!/g, '')
    .replace(/\\\\/g, '\\')
    .replace(/\\[dt]frac/g, '\\frac')
    .replace(/\\left|\\right/g, '')
    .replace(/\^\s*\{\s*\\circ\s*\}|\^\s*\\circ|°/g, '')
    .replace(/\\\$|\$/g, '');
  s = removeRightUnits(s);
  s = s
    .replace(/\\(?:text|textbf|mathrm|mbox)\{([^{}]*)\}/g, '$1')
    .replace(/\\%|%/g, '')
    .replace(/\\[,;: ]/g, ' ')
    .replace(/(^|[\s{(,])\./g, '$10.');
  // "x = 5" or "k=5": the value is the answer (only for a short name on the left, as MATH's checker).
  const parts = s.split('=');
  if (parts.length === 2 && parts[0]!.trim().length <= 2) s = parts[1]!;
  s = fixSqrt(s).replace(/\s+/g, '');
  s = fixFracs(s);
  if (s === '0.5') s = '\\frac{1}{2}';
  // "a/b" of two integers is a fraction.
  const slash = /^(-?\d+)\/(\d+)$/.exec(s);
  if (slash) s = `\\frac{${slash[1]}}{${slash[2]}}`;
  // A trailing full stop is punctuation, not part of the answer.
  s = s.replace(/\.$/, '');
  return s;
}

/** The answer in a model's response: the last `\boxed{}`, else the text after the last "Answer:", else the last line. */
export function extractMathAnswer(response: string): string {
  const boxed = lastBoxed(response);
  if (boxed !== undefined) return boxed;
  const cleaned = response.replace(/\*\*|__|`/g, '');
  const marked = [...cleaned.matchAll(/(?:final answer|answer)\s*(?:is)?\s*[:=]\s*(.+)/gi)].at(-1)?.[1];
  if (marked !== undefined && marked.trim() !== '') return marked.trim();
  return (
    cleaned
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '')
      .at(-1) ?? ''
  );
}
