import { useEffect, useRef, type ReactNode } from 'react';
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip, type ChartConfiguration } from 'chart.js';

// Only what the bar charts use (chart.js is tree-shaken).
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/** A chart.js chart on a canvas, an image to assistive technology (role img, named `label`). */
function ChartCanvas({ config, label }: { config: ChartConfiguration<'bar'>; label: string }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  useEffect(() => {
    if (!canvas.current) return;
    const chart = new Chart(canvas.current, { ...config, options: { animation: false, responsive: true, maintainAspectRatio: false, ...config.options } });
    return () => chart.destroy();
  }, [config]);
  return (
    <div className="chart">
      <canvas ref={canvas} role="img" aria-label={label} />
    </div>
  );
}

interface ChartFigureProps {
  id: string;
  config: ChartConfiguration<'bar'>;
  /** What the canvas shows, in words (its accessible name). */
  label: string;
  caption: ReactNode;
  /** "<tableTitle> as a table" opens the table; "<tableTitle> table" names its region. */
  tableTitle: string;
  /** The table's head and body: the same figures as the chart. */
  children: ReactNode;
}

/** A chart with its caption and, behind a disclosure, a table of the same figures. */
export function ChartFigure({ id, config, label, caption, tableTitle, children }: ChartFigureProps) {
  return (
    <figure className="figure" aria-labelledby={`${id}-caption`}>
      <ChartCanvas config={config} label={label} />
      <figcaption id={`${id}-caption`}>{caption}</figcaption>
      <details className="figure__table">
        <summary>{tableTitle} as a table</summary>
        <div className="table-wrap" tabIndex={0} role="region" aria-label={`${tableTitle} table`}>
          <table className="table">{children}</table>
        </div>
      </details>
    </figure>
  );
}
