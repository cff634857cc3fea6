import { useEffect, useRef } from 'react';
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, Tooltip, type ChartConfiguration } from 'chart.js';

// Only what the bar charts use (chart.js is tree-shaken).
Chart.register(BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/**
 * A chart.js chart on a canvas. The canvas is an image to assistive technology (role img with
 * `label`); the figure it sits in carries the same figures as a table.
 */
export function ChartCanvas({ config, label }: { config: ChartConfiguration<'bar'>; label: string }) {
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
