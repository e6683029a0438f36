// Numbers written for people (`62.9`, `1,708`), as `Intl.NumberFormat('en-US')` writes them, without
// it: the first NumberFormat a process makes loads ICU's locale data, milliseconds that every table,
// change arrow and gate message would pay. Rounding is decimal (half away from zero) on the shortest
// text of the number, as Intl rounds, so 1.005 is 1.01 (toFixed gives 1.00).

/**
 * A number with at least `minDecimals` and at most `maxDecimals` decimals (trailing zeros past the
 * minimum dropped), its thousands grouped with commas when `grouped`. Non-finite numbers and those
 * JavaScript writes with an exponent (past 1e21, below 1e-6) go to Intl, which no score reaches.
 */
export function formatDecimal(value: number, { minDecimals = 0, maxDecimals = Math.max(2, minDecimals), grouped = false } = {}): string {
  const text = String(Math.abs(value));
  if (!Number.isFinite(value) || text.includes('e')) {
    return new Intl.NumberFormat('en-US', { minimumFractionDigits: minDecimals, maximumFractionDigits: maxDecimals, useGrouping: grouped }).format(value);
  }
  const point = text.indexOf('.');
  let whole = point < 0 ? text : text.slice(0, point);
  let fraction = point < 0 ? '' : text.slice(point + 1);
  if (fraction.length > maxDecimals) {
    const roundsUp = fraction.charCodeAt(maxDecimals) >= 0x35; // '5'
    fraction = fraction.slice(0, maxDecimals);
    if (roundsUp) [whole, fraction] = carry(whole, fraction);
  }
  let end = fraction.length;
  while (end > minDecimals && fraction.charCodeAt(end - 1) === 0x30) end -= 1; // trailing '0'
  fraction = fraction.slice(0, end).padEnd(minDecimals, '0');
  const sign = value < 0 || Object.is(value, -0) ? '-' : '';
  return `${sign}${grouped ? group(whole) : whole}${fraction === '' ? '' : `.${fraction}`}`;
}

/** Adds one unit in the last place of whole.fraction (decimal digits), carrying as far as it goes. */
function carry(whole: string, fraction: string): [string, string] {
  const digits = (whole + fraction).split('');
  let index = digits.length - 1;
  for (; index >= 0 && digits[index] === '9'; index -= 1) digits[index] = '0';
  if (index < 0) digits.unshift('1');
  else digits[index] = String(Number(digits[index]) + 1);
  const cut = digits.length - fraction.length;
  return [digits.slice(0, cut).join(''), digits.slice(cut).join('')];
}

/** 1234567 → 1,234,567. */
function group(whole: string): string {
  let out = '';
  for (let end = whole.length; end > 0; end -= 3) out = `${whole.slice(Math.max(0, end - 3), end)}${out === '' ? '' : `,${out}`}`;
  return out;
}
