/** A line-drawn icon's path: stroked in the text colour, round caps and joins, no fill. */
export function StrokePath({ d, width = 1.8 }: { d: string; width?: number }) {
  return (
    <path
      d={d}
      fill="none"
      stroke="currentColor"
      strokeWidth={width}
      strokeLinecap="round"
      strokeLinejoin="round"
    />
  );
}
