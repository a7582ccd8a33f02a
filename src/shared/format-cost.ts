/**
 * Every cost Baton shows, in one form: the page's views, the spend limit's refusal and the bench's
 * summaries all say a price the same way.
 */

/** Below this a cost reads "< $0.000001": more zeros help no one, and an exponent ("5.0e-7") reads as noise. */
const SMALLEST_COST = 0.000_001;

/** Two significant digits in plain decimals ("0.000012"), never an exponent as `toPrecision` gives. */
const twoDigits = new Intl.NumberFormat('en-US', {
  minimumSignificantDigits: 2,
  maximumSignificantDigits: 2,
  useGrouping: false,
});

/**
 * US dollars; sub-cent amounts keep two significant digits, since a step often costs a fraction of a cent,
 * down to a millionth of a dollar.
 */
export function formatCost(usd: number | undefined): string {
  if (usd === undefined || !Number.isFinite(usd)) return '—';
  if (usd === 0) return '$0';
  if (usd < 0) return `-${formatCost(-usd)}`;
  if (usd < SMALLEST_COST) return '< $0.000001';
  if (usd < 0.01) return `$${twoDigits.format(usd)}`;
  return `$${usd.toFixed(usd < 1 ? 3 : 2)}`;
}
