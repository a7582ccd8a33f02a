import { STORED_ECHO_WORKER } from '../fixtures/version1-runs.ts';
import { expect, test } from './app-test.ts';
import { seedVersion1, storedRun, storedStep } from './stored-runs.ts';

// A searching worker's sources, as a stored run shows them: plain links under the answer that the page
// never fetches, only http(s), their titles inert text. The run is written straight into IndexedDB.

const HOSTILE_TITLE = '<img src=x onerror="window.__pwned=1"> Click **here**';
const CITATIONS = [
  { url: 'https://news.example.com/f1/last-race', title: 'Test driver wins the last race' },
  { url: 'https://results.example.org/round-24?lang=en', title: HOSTILE_TITLE },
  { url: 'javascript:window.__pwned=2', title: 'A script link' },
  { url: 'https://bare.example.net/page' },
];
const CITED_HOSTS = ['news.example.com', 'results.example.org', 'bare.example.net'];

test('sources show under the answer as inert links, and the page fetches none of them', async ({ page }) => {
  const requested: string[] = [];
  page.on('request', (request) => {
    const host = new URL(request.url()).hostname;
    if (CITED_HOSTS.includes(host)) requested.push(request.url());
  });
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  await seedVersion1(
    page,
    [
      storedRun('cited', 1000, {
        question: 'Who won the last F1 race?',
        pool: [{ ...STORED_ECHO_WORKER, webSearch: true }],
        answer: 'The test driver won the last race.',
      }),
    ],
    [storedStep('cited', { text: 'The test driver won the last race.', citations: CITATIONS })],
  );
  await page.goto('/#/run/cited');

  for (const where of ['final-citations', 'step-citations-0']) {
    const sources = page.getByTestId(where);
    await expect(sources).toBeVisible();
    const links = sources.getByRole('link');
    // The script link is not a link at all; the others open apart, with no referrer and no opener.
    await expect(links).toHaveCount(3);
    expect(await links.evaluateAll((as) => as.map((a) => a.getAttribute('href')))).toEqual([
      'https://news.example.com/f1/last-race',
      'https://results.example.org/round-24?lang=en',
      'https://bare.example.net/page',
    ]);
    for (const link of await links.all()) {
      await expect(link).toHaveAttribute('rel', 'noreferrer noopener');
      await expect(link).toHaveAttribute('target', '_blank');
    }
    // Titles are text: the markup in one is shown, not run; a link without a title shows its host.
    await expect(links.nth(1)).toHaveText(HOSTILE_TITLE);
    await expect(links.nth(2)).toHaveText('bare.example.net');
    await expect(sources).toContainText('· results.example.org');
    await expect(sources.locator('img, script, iframe')).toHaveCount(0);
    await expect(sources).not.toContainText('A script link');
  }

  expect(await page.evaluate(() => (window as { __pwned?: unknown }).__pwned)).toBeUndefined();
  await page.waitForLoadState('networkidle');
  expect(requested).toEqual([]);
  expect(errors).toEqual([]);
});
