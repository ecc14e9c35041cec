import { z } from 'zod';

/** How reliable a record is, as the upstream states it: source quality and recency. */
export const Confidence = z.enum(['high', 'medium', 'low']);
export type Confidence = z.infer<typeof Confidence>;

/** Account plans of the Property Intelligence Service. Only some carry API access. */
export const Plan = z.enum(['starter', 'professional', 'enterprise']);
export type Plan = z.infer<typeof Plan>;
export const ELIGIBLE_PLANS: readonly Plan[] = ['professional', 'enterprise'];

/** Calendar date as the BFF speaks it, whatever the upstream sent. */
export const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'expected YYYY-MM-DD');

/** Longest address a client may send; longer input is refused, never truncated. */
export const MAX_ADDRESS_LENGTH = 512;

/**
 * An address or partial address typed by a person. Control characters are refused rather than stripped so
 * that what we resolve is exactly what was asked.
 */
export const AddressInput = z
  .string()
  .max(MAX_ADDRESS_LENGTH, `An address is at most ${MAX_ADDRESS_LENGTH} characters.`)
  // biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
  .refine((s) => !/[\u0000-\u001f\u007f-\u009f]/.test(s), 'An address cannot contain control characters.')
  .refine((s) => s.trim().length > 0, 'Enter an address.');
