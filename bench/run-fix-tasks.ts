import type { Task } from '../src/evaluation/taskset.ts';

/**
 * The project's own small Python code set for P20 (written here, no benchmark data): each task's question
 * shows examples in its docstring (public: a run step may run them), ships hidden asserts (its score), and
 * comes with a correct solution and one with a seeded bug. Most bugs show on the public examples; the last
 * two show only on the hidden tests, as some real bugs do, so a run of the examples cannot find them.
 */
export interface SeededTask {
  task: Task;
  correct: string;
  buggy: string;
}

function task(
  id: string,
  head: string,
  examples: [string, string][],
  hidden: string[],
  correct: string,
  buggy: string,
): SeededTask {
  const doc = examples.map(([call, want]) => `    >>> ${call}\n    ${want}`).join('\n');
  const question = `Complete this Python function. Reply with the whole function in one \`\`\`python block.\n\n\`\`\`python\n${head}\n    """\n${doc}\n    """\n\`\`\``;
  return {
    task: {
      id,
      kind: 'python',
      question,
      answer: correct,
      python: { style: 'asserts', tests: hidden.join('\n') },
    },
    correct,
    buggy,
  };
}

export const RUN_FIX_TASKS: SeededTask[] = [
  task(
    'leap',
    'def is_leap(year):',
    [
      ['is_leap(2024)', 'True'],
      ['is_leap(1900)', 'False'],
    ],
    ['assert is_leap(2000)', 'assert not is_leap(2100)', 'assert not is_leap(2023)'],
    'def is_leap(year):\n    return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)',
    'def is_leap(year):\n    return year % 4 == 0',
  ),
  task(
    'clamp',
    'def clamp(x, low, high):',
    [
      ['clamp(5, 0, 3)', '3'],
      ['clamp(-1, 0, 3)', '0'],
    ],
    ['assert clamp(2, 0, 3) == 2', 'assert clamp(9, 1, 4) == 4', 'assert clamp(0, 1, 4) == 1'],
    'def clamp(x, low, high):\n    return max(low, min(x, high))',
    'def clamp(x, low, high):\n    return min(low, max(x, high))',
  ),
  task(
    'mean',
    'def mean(xs):',
    [
      ['mean([1, 2, 3, 4])', '2.5'],
      ['mean([5])', '5.0'],
    ],
    ['assert mean([2, 4]) == 3.0', 'assert mean([1, 2]) == 1.5'],
    'def mean(xs):\n    return sum(xs) / len(xs)',
    'def mean(xs):\n    return sum(xs) // len(xs)',
  ),
  task(
    'last_word',
    'def last_word(text):',
    [
      ['last_word("hello big world")', "'world'"],
      ['last_word("one")', "'one'"],
    ],
    ['assert last_word("a b c") == "c"', 'assert last_word("  x y  ") == "y"'],
    'def last_word(text):\n    return text.split()[-1]',
    'def last_word(text):\n    return text.split()[1]',
  ),
  task(
    'count_vowels',
    'def count_vowels(text):',
    [
      ['count_vowels("Baton")', '2'],
      ['count_vowels("AEIOU")', '5'],
    ],
    ['assert count_vowels("xyz") == 0', 'assert count_vowels("AbE") == 2'],
    'def count_vowels(text):\n    return sum(1 for c in text.lower() if c in "aeiou")',
    'def count_vowels(text):\n    return sum(1 for c in text if c in "aeiou")',
  ),
  task(
    'factorial',
    'def factorial(n):',
    [
      ['factorial(5)', '120'],
      ['factorial(0)', '1'],
    ],
    ['assert factorial(1) == 1', 'assert factorial(6) == 720'],
    'def factorial(n):\n    result = 1\n    for i in range(2, n + 1):\n        result *= i\n    return result',
    'def factorial(n):\n    result = 1\n    for i in range(2, n):\n        result *= i\n    return result',
  ),
  task(
    'reverse_words',
    'def reverse_words(text):',
    [
      ['reverse_words("a b c")', "'c b a'"],
      ['reverse_words("hi")', "'hi'"],
    ],
    ['assert reverse_words("one two") == "two one"'],
    'def reverse_words(text):\n    return " ".join(reversed(text.split()))',
    'def reverse_words(text):\n    return "".join(reversed(text.split()))',
  ),
  task(
    'second_largest',
    'def second_largest(xs):',
    [
      ['second_largest([3, 1, 4, 1, 5])', '4'],
      ['second_largest([2, 2, 1])', '1'],
    ],
    ['assert second_largest([10, 20]) == 10', 'assert second_largest([5, 5, 5, 3]) == 3'],
    'def second_largest(xs):\n    return sorted(set(xs))[-2]',
    'def second_largest(xs):\n    return sorted(xs)[-2]',
  ),
  task(
    'is_palindrome',
    'def is_palindrome(text):',
    [
      ['is_palindrome("Racecar")', 'True'],
      ['is_palindrome("Baton")', 'False'],
    ],
    ['assert is_palindrome("Step on no pets")', 'assert not is_palindrome("ab")'],
    'def is_palindrome(text):\n    s = [c.lower() for c in text if c.isalnum()]\n    return s == s[::-1]',
    'def is_palindrome(text):\n    s = [c for c in text if c.isalnum()]\n    return s == s[::-1]',
  ),
  task(
    'digits_sum',
    'def digits_sum(n):',
    [
      ['digits_sum(123)', '6'],
      ['digits_sum(-45)', '9'],
    ],
    ['assert digits_sum(0) == 0', 'assert digits_sum(-70) == 7'],
    'def digits_sum(n):\n    return sum(int(d) for d in str(abs(n)))',
    'def digits_sum(n):\n    return sum(int(d) for d in str(n))',
  ),
  task(
    'chunk',
    'def chunk(xs, size):',
    [
      ['chunk([1, 2, 3, 4, 5], 2)', '[[1, 2], [3, 4], [5]]'],
      ['chunk([1, 2], 2)', '[[1, 2]]'],
    ],
    ['assert chunk([], 3) == []', 'assert chunk([1, 2, 3], 1) == [[1], [2], [3]]'],
    'def chunk(xs, size):\n    return [xs[i:i + size] for i in range(0, len(xs), size)]',
    'def chunk(xs, size):\n    return [xs[i:i + size] for i in range(0, len(xs) - 1, size)]',
  ),
  task(
    'gcd',
    'def gcd(a, b):',
    [
      ['gcd(12, 18)', '6'],
      ['gcd(7, 5)', '1'],
    ],
    ['assert gcd(0, 9) == 9', 'assert gcd(100, 75) == 25'],
    'def gcd(a, b):\n    while b:\n        a, b = b, a % b\n    return a',
    'def gcd(a, b):\n    while b:\n        a, b = b, a // b\n    return a',
  ),
  // The examples pass; only the hidden tests catch these.
  task(
    'median',
    'def median(xs):',
    [
      ['median([3, 1, 2])', '2'],
      ['median([5, 1, 9])', '5'],
    ],
    ['assert median([1, 2, 3, 4]) == 2.5', 'assert median([7]) == 7'],
    'def median(xs):\n    s = sorted(xs)\n    n = len(s)\n    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2',
    'def median(xs):\n    s = sorted(xs)\n    return s[len(s) // 2]',
  ),
  task(
    'title_case',
    'def title_case(text):',
    [
      ['title_case("hello world")', "'Hello World'"],
      ['title_case("baton")', "'Baton'"],
    ],
    ['assert title_case("") == ""', 'assert title_case("a  b") == "A  B"'],
    'def title_case(text):\n    return " ".join(w[:1].upper() + w[1:] for w in text.split(" "))',
    'def title_case(text):\n    return " ".join(w[0].upper() + w[1:] for w in text.split())',
  ),
];
