/**
 * The script inside the report page. It only turns the chart specs (computed and typed in
 * charts.ts) into uPlot charts, so it is kept as plain browser JavaScript in a string: the page
 * must carry it inline, and the project's TypeScript is compiled for Node, not for the DOM.
 * The charts are kept on window.headroomCharts so that the page can be inspected from outside.
 */
export const CLIENT_SCRIPT = String.raw`
(function () {
  'use strict';
  var specs = JSON.parse(document.getElementById('headroom-data').textContent).charts;
  var charts = [];
  window.headroomCharts = charts;

  function percentLabel(x) {
    var digits = Math.max(0, Math.round(Math.log10(x)) - 2);
    return (100 * (1 - 1 / x)).toFixed(digits) + '%';
  }
  function number(v) {
    if (v == null) return '-';
    var a = Math.abs(v);
    return a >= 100 ? v.toFixed(0) : a >= 10 ? v.toFixed(1) : a >= 1 ? v.toFixed(2) : v.toFixed(3);
  }
  function decades(u) {
    var out = [];
    for (var v = 1; v <= u.scales.x.max * 1.0001; v *= 10) if (v >= u.scales.x.min * 0.9999) out.push(v);
    return out;
  }
  // Drawn under the lines: the spans the results exclude (the warm-up).
  function shade(spans) {
    return {
      hooks: {
        drawClear: [function (u) {
          var ctx = u.ctx;
          ctx.save();
          ctx.fillStyle = 'rgba(255, 170, 0, 0.14)';
          spans.forEach(function (s) {
            var x0 = Math.max(u.bbox.left, u.valToPos(s.from, 'x', true));
            var x1 = Math.min(u.bbox.left + u.bbox.width, u.valToPos(s.to, 'x', true));
            if (x1 > x0) ctx.fillRect(x0, u.bbox.top, x1 - x0, u.bbox.height);
          });
          ctx.restore();
        }],
      },
    };
  }
  // Drawn over the lines: a sweep's knee as a ring on its point, the refused step as a dashed line.
  function mark(marks) {
    return {
      hooks: {
        draw: [function (u) {
          var ctx = u.ctx;
          ctx.save();
          ctx.font = 'bold ' + Math.round(12 * devicePixelRatio) + 'px system-ui, sans-serif';
          ctx.lineWidth = 3 * devicePixelRatio;
          var lines = 0;
          marks.forEach(function (m) {
            var x = u.valToPos(m.x, 'x', true);
            ctx.strokeStyle = m.color;
            ctx.fillStyle = m.color;
            if (m.y == null) {
              ctx.setLineDash([8 * devicePixelRatio, 5 * devicePixelRatio]);
              ctx.beginPath();
              ctx.moveTo(x, u.bbox.top);
              ctx.lineTo(x, u.bbox.top + u.bbox.height);
              ctx.stroke();
              ctx.setLineDash([]);
              ctx.textAlign = 'right';
              // Several sweeps' refusals: labels one under the other rather than over each other.
              ctx.fillText(m.label, x - 6 * devicePixelRatio, u.bbox.top + (14 + 16 * lines++) * devicePixelRatio);
            } else {
              var y = u.valToPos(m.y, 'y', true);
              ctx.beginPath();
              ctx.arc(x, y, 9 * devicePixelRatio, 0, 2 * Math.PI);
              ctx.stroke();
              ctx.textAlign = 'center';
              ctx.fillText(m.label, x, y - 14 * devicePixelRatio);
            }
          });
          ctx.restore();
        }],
      },
    };
  }
  function draw(spec, el) {
    var percentile = spec.kind === 'percentile';
    var terminals = spec.kind === 'terminals';
    var bars = spec.kind === 'bars';
    var xAxis = { label: spec.xLabel || (percentile ? 'percentile' : terminals ? 'terminals (clients)' : bars ? 'run' : 'seconds since the clients started') };
    // One tick per bar, named.
    if (bars) {
      xAxis.splits = function () { return spec.x; };
      xAxis.values = function (u, splits) { return splits.map(function (i) { return spec.categories[i]; }); };
    }
    // Whole seconds on time axes, as the series has one point a second.
    else if (!percentile && !terminals) xAxis.incrs = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 14400, 43200, 86400];
    // A tick at every step of a short sweep; whole numbers in any case.
    if (terminals) {
      if (spec.x.length <= 12) xAxis.splits = function () { return spec.x; };
      else xAxis.incrs = [1, 2, 5, 10, 20, 25, 50, 100, 200, 250, 500, 1000, 2000, 5000];
    }
    var xScale = percentile ? { time: false, distr: 3, log: 10, range: function (u, min, max) { return [1, Math.max(10, max)]; } }
      : terminals && spec.xLog ? { time: false, distr: 3, log: 2, range: function (u, min, max) { return [min / 1.25, max * 1.25]; } }
      : bars ? { time: false, range: function () { return [-0.5, spec.x.length - 0.5]; } }
      : terminals ? { time: false, range: function (u, min, max) { return [0, Math.max(1, max * 1.05)]; } }
      : { time: false, range: function (u, min, max) { return [0, Math.max(1, max)]; } };
    if (percentile) {
      xAxis.splits = decades;
      xAxis.values = function (u, splits) { return splits.map(percentLabel); };
    }
    var opts = {
      title: spec.title,
      width: Math.max(320, el.clientWidth),
      height: 300,
      plugins: (spec.shaded.length ? [shade(spec.shaded)] : []).concat(spec.marks && spec.marks.length ? [mark(spec.marks)] : []),
      scales: {
        x: xScale,
        y: spec.yLog ? { distr: 3, log: 10 } : { range: function (u, min, max) { return [0, max > 0 ? max * 1.05 : 1]; } },
      },
      series: [{
        label: spec.xLabel || (percentile ? 'percentile' : terminals ? 'terminals' : bars ? 'run' : 'time'),
        value: function (u, v) { return v == null ? '-' : bars ? spec.categories[v] : percentile ? percentLabel(v) : terminals ? String(v) : v.toFixed(1) + ' s'; },
      }].concat(spec.lines.map(function (line, i) {
        // Bars: the first line as bars, the others as dots on them.
        if (bars) {
          return i === 0
            ? { label: line.label, stroke: line.color, fill: line.color, width: 1, paths: uPlot.paths.bars({ size: [0.6, 120] }), points: { show: false }, value: function (u, v) { return number(v); } }
            : { label: line.label, stroke: line.color, width: 2, paths: function () { return null; }, points: { show: true, size: 12, width: 2, fill: line.color }, value: function (u, v) { return number(v); } };
        }
        // A line needs two points: a short run's (or an early interrupt's) lone values show as dots.
        var few = terminals || (!percentile && spec.x.length <= 30);
        // A sweep's line runs across a step another sweep has and it lacks (or the refused step).
        var s = { label: line.label, spanGaps: terminals, stroke: line.color, width: 2, points: { show: few, size: 6, fill: line.color }, value: function (u, v) { return number(v); } };
        if (line.dashed) s.dash = [6, 4];
        return s;
      })),
      axes: [xAxis, { label: spec.yLabel, size: 64 }],
    };
    var plot = new uPlot(opts, [spec.x].concat(spec.lines.map(function (l) { return l.values; })), el);
    charts.push({ id: spec.id, plot: plot, colors: spec.lines.map(function (l) { return l.color; }).concat((spec.marks || []).map(function (m) { return m.color; })) });
  }
  specs.forEach(function (spec) { draw(spec, document.getElementById(spec.id)); });
  window.addEventListener('resize', function () {
    charts.forEach(function (c) { c.plot.setSize({ width: Math.max(320, c.plot.root.parentElement.clientWidth), height: 300 }); });
  });
})();
`;
