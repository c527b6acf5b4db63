package smbdirect.dist;

/** Scripts run in the status page to check its charts as drawn. */
final class ChartLabels {

    /**
     * The charts whose y axis shows one label twice ("2 B/s, 1 B/s, 1 B/s, 0 B/s"), as "canvas id:
     * labels", comma-separated; empty when none does.
     */
    static final String REPEATED = "var out = []; document.querySelectorAll('#smbd canvas').forEach(function (canvas) {"
            + " var c = Chart.getChart(canvas); if (!c) { return; }"
            + " var labels = c.scales.y.ticks.map(function (t) { return t.label; }).filter(function (l) { return l; });"
            + " if (new Set(labels).size !== labels.length) { out.push(canvas.id + ': ' + labels.join(' | ')); } });"
            + " return out.join(', ');";

    private ChartLabels() {
    }
}
