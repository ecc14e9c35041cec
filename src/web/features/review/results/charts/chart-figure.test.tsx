import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { ChartFigure } from './chart-figure.tsx';

/** A drawing whose code has not come yet (lazy-bars.tsx before its chunk is in). */
const never = new Promise<never>(() => {});
function NotYetDrawn(): never {
  throw never;
}

describe('ChartFigure', () => {
  it('draws its caption and list at once, and keeps the drawing’s height until its code is in', () => {
    render(
      <ChartFigure
        title="Confidence mix"
        caption="Of 2 records: high 50%, medium 50%, low 0%."
        empty={false}
        height={200}
        onActivate={() => {}}
        chart={() => <NotYetDrawn />}
        figures={<ul aria-label="Confidence mix: show only" />}
      />,
    );
    const figure = screen.getByRole('figure', { name: 'Confidence mix' });
    expect(figure).toHaveTextContent('Of 2 records: high 50%, medium 50%, low 0%.');
    expect(screen.getByRole('list', { name: 'Confidence mix: show only' })).toBeInTheDocument();
    // The box the drawing goes in: as tall as the drawing, so nothing below moves when it comes.
    const box = figure.querySelector('figcaption + div > div') as HTMLElement;
    expect(box.style.height).toBe('200px');
  });
});
