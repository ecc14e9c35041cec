/**
 * An address as services read it, whatever order people write it in: a list's number ("1. 271 Gloucester Rd",
 * "12) 40 Elm St", as pasted from an email) dropped, and a unit written first ("Unit 301, 140 Waterloo Rd, …")
 * moved after the street. The reference's resolver and the match explanation read addresses through it, so a
 * record found this way is explained as given, not as corrected.
 */
export function addressInUsualOrder(input: string): string {
  const unlisted = input.replace(/^\s*\d{1,3}[.)]\s+(?=\d)/, '');
  const unitFirst = /^\s*((?:unit|apt|apartment|suite|ste|#)\.?\s*#?\s*[A-Za-z0-9-]+)\s*,\s*(\d.*)$/i.exec(
    unlisted,
  );
  return unitFirst ? `${unitFirst[2]} ${unitFirst[1]}` : unlisted;
}
