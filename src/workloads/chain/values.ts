import type { Random } from '../../common/random.js';

/**
 * Column values as chain-model.md specifies them: names are random printable ASCII of their full
 * declared length; country_code and house are the row index modulo 10,000 and 100,000 as text;
 * flat is the row index; building is 5 random characters.
 */
export const NAME_LENGTH = 150;
export const PERSON_NAME_LENGTH = 30;

/** Printable ASCII, space (0x20) to tilde (0x7e). */
export function printable(random: Random, length: number): string {
  let text = '';
  for (let i = 0; i < length; i++) text += String.fromCharCode(0x20 + random.int(0, 94));
  return text;
}

export const countryCode = (index: number): string => String(index % 10_000);
export const house = (index: number): string => String(index % 100_000);
export const building = (random: Random): string => printable(random, 5);
