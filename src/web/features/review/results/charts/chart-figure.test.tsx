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

  it('keeps its frame’s room with records to chart, and none when it has none to say', () => {
    const frame = { narrow: 450, sm: 342, md: 342, lg: 602, xl: 514 };
    const figure = (empty: boolean) => (
      <ChartFigure
        title="Confidence mix"
        caption="How many records are at high, medium and low confidence."
        empty={empty}
        height={200}
        frame={frame}
        onActivate={() => {}}
        chart={() => <NotYetDrawn />}
        figures={null}
      />
    );
    const { rerender } = render(figure(false));
    const drawn = screen.getByRole('figure', { name: 'Confidence mix' });
    expect(drawn.style.getPropertyValue('--frame-xl')).toBe('514px');
    expect(drawn.style.getPropertyValue('--frame-narrow')).toBe('450px');
    // "No records yet" is a sentence, not 514 px of empty chart.
    rerender(figure(true));
    expect(screen.getByRole('figure', { name: 'Confidence mix' }).style.getPropertyValue('--frame-xl')).toBe(
      '',
    );
  });
});
