/**
 * "a" or "an" before a name, by how it is said: "an OpenAI key", "an LM Studio server", "an xAI key",
 * "a Groq key", "a vLLM server". Provider names are what this is for; it is not a general English rule.
 */
export function withArticle(name: string): string {
  return `${startsWithVowelSound(name) ? 'an' : 'a'} ${name}`;
}

/** Letters said with a leading vowel sound when spelt out: "an LM", "an MLC", "an xAI", "an SDK". */
const SPELT_WITH_VOWEL = new Set([...'FHLMNRSX']);

function startsWithVowelSound(name: string): boolean {
  const word = name.trim();
  const first = word[0];
  if (!first) return false;
  // Spelt-out initialisms: the second letter is a capital (LM Studio, xAI, MLC) or there is none.
  const second = word[1];
  const spelt = second === undefined || (/[A-Z]/.test(second) && /[A-Za-z]/.test(first));
  if (spelt) return /[AEIOU]/i.test(first) || SPELT_WITH_VOWEL.has(first.toUpperCase());
  // "a unified", "a one-off": u said "you", o said "won".
  if (/^(uni|use|usa|one\b|once)/i.test(word)) return false;
  return /^[aeiou]/i.test(word);
}
