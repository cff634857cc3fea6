import { useEffect, useRef } from 'react';
import { BarController, BarElement, CategoryScale, Chart, Legend, LinearScale, LineController, LineElement, PointElement, Tooltip, type ChartConfiguration } from 'chart.js';

Chart.register(LineController, LineElement, PointElement, BarController, BarElement, CategoryScale, LinearScale, Legend, Tooltip);

/**
 * A chart.js chart on a canvas. The canvas is an image to assistive technology (role img with
 * `label`); the figure it sits in carries the same figures as a table.
 */
export function ChartCanvas({ config, label }: { config: ChartConfiguration<'line' | 'bar'>; label: string }) {
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
