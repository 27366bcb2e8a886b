/**
 * An ECharts canvas (tree-shaken: only the charts and components the pages use). The option is
 * replaced whole on every change; `data-ready` turns true once the chart has drawn it, which is
 * what the browser tests and the performance measure wait for.
 */
import { BarChart, CustomChart, LineChart, ScatterChart } from 'echarts/charts';
import { DataZoomComponent, GridComponent, LegendComponent, MarkLineComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import type { EChartsCoreOption, EChartsType } from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { forwardRef, useImperativeHandle, useLayoutEffect, useRef } from 'react';

echarts.use([
  ScatterChart,
  LineChart,
  BarChart,
  CustomChart,
  GridComponent,
  TooltipComponent,
  LegendComponent,
  MarkLineComponent,
  DataZoomComponent,
  CanvasRenderer,
]);

export interface ChartHandle {
  png(): string | undefined;
}

interface Props {
  option: EChartsCoreOption;
  height: number;
  testId: string;
  /** Extra data-* attributes for tests (counts of what is drawn). */
  data?: Record<string, string | number>;
}

export const Chart = forwardRef<ChartHandle, Props>(function Chart({ option, height, testId, data = {} }, ref) {
  const el = useRef<HTMLDivElement>(null);
  const chart = useRef<EChartsType | undefined>(undefined);

  useLayoutEffect(() => {
    const c = echarts.init(el.current!, undefined, { renderer: 'canvas' });
    chart.current = c;
    // The instance on its element: the browser tests show a point's tooltip through it (showTip).
    Object.assign(el.current!, { echarts: c });
    const resize = new ResizeObserver(() => c.resize());
    resize.observe(el.current!);
    return () => {
      resize.disconnect();
      c.dispose();
    };
  }, []);

  // A layout effect: `data-ready` turns false in the same task that shows the new data attributes.
  useLayoutEffect(() => {
    const c = chart.current!;
    el.current!.dataset.ready = 'false';
    c.off('finished');
    c.on('finished', () => {
      if (el.current) el.current.dataset.ready = 'true';
    });
    c.setOption(option, { notMerge: true, lazyUpdate: false });
  }, [option]);

  useImperativeHandle(ref, () => ({
    png: () => chart.current?.getDataURL({ type: 'png', pixelRatio: 2, backgroundColor: '#fff' }),
  }));

  const attrs = Object.fromEntries(Object.entries(data).map(([k, v]) => [`data-${k}`, String(v)]));
  // A fixed height: the page does not shift when the chart arrives.
  return <div ref={el} className="chart" style={{ height }} data-testid={testId} data-ready="false" {...attrs} />;
});

/** Save a data: URL or a text as a file. */
export function download(name: string, content: string, type?: string): void {
  const a = document.createElement('a');
  a.href = type ? URL.createObjectURL(new Blob([content], { type })) : content;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  if (type) setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}
