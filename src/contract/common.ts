import * as z from 'zod/mini';

/*
 * The contract is written with zod/mini: the same schemas run in the browser, where classic zod would cost
 * about 40 KB gzipped of the 120 KB budget (docs/decisions/002-zod-mini-contract.md).
 */

/** How reliable a record is, as the upstream states it: source quality and recency. */
export const Confidence = z.enum(['high', 'medium', 'low']);
export type Confidence = z.infer<typeof Confidence>;

/** Account plans of the Property Intelligence Service. Only some carry API access. */
export const Plan = z.enum(['starter', 'professional', 'enterprise']);
export type Plan = z.infer<typeof Plan>;
export const ELIGIBLE_PLANS: readonly Plan[] = ['professional', 'enterprise'];

/** Calendar date as the BFF speaks it, whatever the upstream sent. */
export const IsoDate = z.string().check(z.regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD'));

/** Longest address a client may send; longer input is refused, never truncated. */
export const MAX_ADDRESS_LENGTH = 512;

/**
 * An address or partial address typed by a person. Control characters are refused rather than stripped so
 * that what we resolve is exactly what was asked.
 */
export const AddressInput = z.string().check(
  z.maxLength(MAX_ADDRESS_LENGTH, `An address is at most ${MAX_ADDRESS_LENGTH} characters.`),
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  z.refine((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s), 'An address cannot contain control characters.'),
  z.refine((s) => s.trim().length > 0, 'Enter an address.'),
);

/**
 * The key under which an address is cached, in the browser and in the BFF alike: the same address in other
 * case, spacing or Unicode form is the same question.
 */
export function addressKey(text: string): string {
  return text
    .normalize('NFC')
    .toLowerCase()
    .replace(/\s*,\s*/g, ', ')
    .replace(/\s+/g, ' ')
    .trim();
}
