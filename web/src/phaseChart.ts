// The phase-history chart: one coloured band per phase over chain time, with the vitality line on top
// (uPlot). The bands are drawn under the series in uPlot's drawClear hook.
import uPlot from 'uplot'
import type { PhaseName } from '../../core/lifecycle/phase.ts'
import type { PhaseBand } from './phaseBands.ts'

/** One colour per phase; `satisfies` fails the build when the phase list changes and this does not. */
export const PHASE_COLORS: Readonly<Record<string, string>> = {
  Thriving: 'rgba(46, 160, 67, 0.28)',
  Stable: 'rgba(56, 132, 244, 0.25)',
  Conservation: 'rgba(219, 171, 9, 0.3)',
  Declining: 'rgba(240, 110, 40, 0.3)',
  Terminal: 'rgba(210, 40, 50, 0.35)',
} satisfies Record<PhaseName, string>

export function drawPhaseChart(target: HTMLElement, bands: readonly PhaseBand[], vitality: { t: number[]; v: number[] }): uPlot {
  const start = bands[0]?.start ?? 0
  const end = bands[bands.length - 1]?.end ?? start + 1
  const xs = vitality.t.length > 0 ? vitality.t : [start, end]
  const ys = vitality.t.length > 0 ? vitality.v : [null, null]
  const options: uPlot.Options = {
    width: Math.max(320, target.clientWidth || 640),
    height: 220,
    scales: { x: { time: true, range: [start, Math.max(end, start + 1)] }, y: { range: [0, 1] } },
    axes: [{}, { label: 'vitality', values: (_u, ticks) => ticks.map((t) => t.toFixed(1)) }],
    series: [{}, { label: 'vitality', stroke: '#222', width: 2, points: { show: true, size: 5 } }],
    legend: { show: false },
    hooks: {
      drawClear: [
        (u) => {
          const { ctx, bbox } = u
          ctx.save()
          for (const band of bands) {
            const x0 = u.valToPos(band.start, 'x', true)
            const x1 = u.valToPos(band.end, 'x', true)
            ctx.fillStyle = PHASE_COLORS[band.phase] ?? 'rgba(128,128,128,0.2)'
            ctx.fillRect(x0, bbox.top, Math.max(1, x1 - x0), bbox.height)
          }
          ctx.restore()
        },
      ],
    },
  }
  return new uPlot(options, [xs, ys] as uPlot.AlignedData, target)
}
