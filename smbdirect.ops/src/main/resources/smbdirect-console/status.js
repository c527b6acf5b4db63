/*
 * SMB Direct status page. Draws the page from smbdirect.json (the runtime DTO, health and the monitor's
 * history) and refreshes it in place: rows and charts are updated, not rebuilt, so that an expanded
 * connection and the scroll position stay while the numbers move. Charts: Chart.js (global Chart).
 */
(function () {
  'use strict';

  var root = document.getElementById('smbd');
  if (!root) {
    return;
  }
  // absolute, from the origin: a page opened as http://user:password@host/... resolves relative URLs with the
  // credentials in them, which fetch() refuses; the browser sends the cached credentials by itself
  var jsonUrl = window.location.protocol + '//' + window.location.host + root.getAttribute('data-json');
  var actionUrl = root.getAttribute('data-action');
  var token = root.getAttribute('data-token');
  var refreshMillis = parseInt(root.getAttribute('data-refresh'), 10) || 2000;
  var windowSeconds = parseInt(root.getAttribute('data-window'), 10) || 300;

  var COLORS = { out: '#2f6fd6', in: '#1e9e5a', held: '#7b4fc9', granted: '#e08a1e', stalls: '#d23c3c' };
  var providerCards = {};   // name -> { card, charts }
  var connectionRows = {};  // key -> { row, cells, details, charts, open }
  var expanded = {};        // key -> true
  var timer = null;
  var inFlight = false;
  var current = null;       // the data last rendered

  // ---- formatting -------------------------------------------------------------------------------

  function num(n) {
    return Number(n).toLocaleString('en-US');
  }

  function bytes(n) {
    var units = ['KiB', 'MiB', 'GiB', 'TiB'];
    var v = n, u = -1;
    while (v >= 1024 && v % 1024 === 0 && u < units.length - 1) {
      v /= 1024;
      u++;
    }
    return u >= 0 ? num(v) + ' ' + units[u] : num(n) + ' B';
  }

  function rate(bytesPerSecond) {
    var v = Number(bytesPerSecond) || 0;
    if (v < 1000) {
      return v.toFixed(0) + ' B/s';
    }
    if (v < 1e6) {
      return (v / 1e3).toFixed(1) + ' kB/s';
    }
    if (v < 1e9) {
      return (v / 1e6).toFixed(1) + ' MB/s';
    }
    return (v / 1e9).toFixed(2) + ' GB/s';
  }

  function perSecond(v) {
    v = Number(v) || 0;
    if (v >= 10000) {
      return (v / 1000).toFixed(1) + ' k/s';
    }
    return (v >= 10 ? v.toFixed(0) : v.toFixed(1)) + '/s';
  }

  function count(v) {
    v = Number(v) || 0;
    return v >= 10000 ? (v / 1000).toFixed(1) + ' k' : v.toFixed(0);
  }

  function seconds(s) {
    return duration(s * 1000);
  }

  function duration(ms) {
    if (ms === 0) {
      return '0';
    }
    if (ms % 60000 === 0 && ms >= 120000) {
      return num(ms / 60000) + ' min';
    }
    if (ms % 1000 === 0) {
      return num(ms / 1000) + ' s';
    }
    return num(ms) + ' ms';
  }

  function clock(millis) {
    if (!millis) {
      return '';
    }
    var d = new Date(millis);
    function two(x) { return (x < 10 ? '0' : '') + x; }
    return two(d.getHours()) + ':' + two(d.getMinutes()) + ':' + two(d.getSeconds());
  }

  function ago(seconds) {
    var s = Math.round(-seconds);
    if (s <= 0) {
      return 'now';
    }
    var m = Math.floor(s / 60), r = s % 60;
    return '-' + (m > 0 ? m + ':' + (r < 10 ? '0' : '') + r : r + ' s');
  }

  function statusClass(state) {
    switch (String(state)) {
      case 'OPEN': case 'ESTABLISHED': case 'OK': return 'ok';
      case 'WAITING': case 'NEGOTIATING': case 'CONNECTING': case 'WARN': return 'warn';
      case 'FAILED': case 'CRITICAL': case 'NEGOTIATION_FAILED': case 'NEGOTIATION_TIMEOUT': return 'critical';
      case 'ACCEPTED': return 'ok';
      case 'REFUSED_CAP': case 'REFUSED_BUDGET': case 'REFUSED_CLOSED': case 'DECLINED': return 'warn';
      default: return '';
    }
  }

  // ---- DOM helpers -----------------------------------------------------------------------------

  function el(tag, attrs, children) {
    var e = document.createElement(tag);
    if (attrs) {
      Object.keys(attrs).forEach(function (k) {
        if (k === 'text') {
          e.textContent = attrs[k];
        } else if (k === 'class') {
          e.className = attrs[k];
        } else {
          e.setAttribute(k, attrs[k]);
        }
      });
    }
    (children || []).forEach(function (c) {
      if (c != null) {
        e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
      }
    });
    return e;
  }

  function td(text, cls) {
    return el('td', { text: text == null ? '' : String(text), 'class': cls || '' });
  }

  function badge(text, cls) {
    return el('span', { text: text, 'class': 'smbd-badge ' + (cls || statusClass(text)) });
  }

  function tbody(id) {
    return document.querySelector('#' + id + ' tbody');
  }

  function replaceRows(id, rows, empty, columns) {
    var body = tbody(id);
    while (body.firstChild) {
      body.removeChild(body.firstChild);
    }
    if (rows.length === 0) {
      var cell = td(empty, 'empty');
      cell.setAttribute('colspan', String(columns));
      body.appendChild(el('tr', null, [cell]));
    }
    rows.forEach(function (r) { body.appendChild(r); });
  }

  function postForm(action, fields, label, cls) {
    var form = el('form', { method: 'post', action: actionUrl, style: 'display:inline;margin:0' });
    form.appendChild(el('input', { type: 'hidden', name: 'token', value: token }));
    form.appendChild(el('input', { type: 'hidden', name: 'action', value: action }));
    Object.keys(fields).forEach(function (k) {
      form.appendChild(el('input', { type: 'hidden', name: k, value: String(fields[k]) }));
    });
    form.appendChild(el('button', { type: 'submit', 'class': cls || '', text: label }));
    return form;
  }

  // ---- charts ----------------------------------------------------------------------------------

  var CHARTS = [
    { title: 'Throughput', format: rate, precision: 0, lines: [
      { key: 'bytesSentPerSecond', label: 'out', color: COLORS.out },
      { key: 'bytesReceivedPerSecond', label: 'in', color: COLORS.in }] },
    { title: 'Messages', format: perSecond, lines: [
      { key: 'messagesSentPerSecond', label: 'out', color: COLORS.out },
      { key: 'messagesReceivedPerSecond', label: 'in', color: COLORS.in }] },
    // held and granted are often equal: granted is drawn dashed over the wider held line, so both show
    { title: 'Credits', format: count, precision: 0, lines: [
      { key: 'sendCredits', label: 'held', color: COLORS.held, width: 3, order: 1 },
      { key: 'peerCredits', label: 'granted', color: COLORS.granted, dash: [6, 4], order: 0 }] },
    { title: 'Credit stalls', format: perSecond, lines: [
      { key: 'creditStallsPerSecond', label: 'stalls', color: COLORS.stalls, fill: true }] }
  ];

  /**
   * A y axis label: none where it would repeat the one below (an idle chart's 0 to 2 B/s in steps of 0.5
   * would read 0, 1, 1, 2 B/s).
   */
  function tickLabel(format, v, i, ticks) {
    var text = format(v);
    return i > 0 && format(ticks[i - 1].value) === text ? '' : text;
  }

  function chartBlock(prefix) {
    var grid = el('div', { 'class': 'smbd-charts' });
    var charts = [];
    CHARTS.forEach(function (spec, i) {
      var box = el('div', { 'class': 'smbd-chart' });
      var canvas = el('canvas', { id: prefix + '-chart-' + i, 'aria-label': spec.title });
      box.appendChild(canvas);
      grid.appendChild(box);
      charts.push({ spec: spec, canvas: canvas, chart: null });
    });
    return { grid: grid, charts: charts };
  }

  /** The x axis: the whole minutes the history covers, up to the window the server keeps. */
  function span(history, nowMillis) {
    var t = history && history.timeMillis;
    var age = t && t.length ? (nowMillis - t[0]) / 1000 : 0;
    return Math.min(windowSeconds, Math.max(60, Math.ceil(age / 60) * 60));
  }

  function step(shown) {
    return shown <= 60 ? 10 : shown <= 180 ? 30 : 60;
  }

  function drawCharts(charts, history, nowMillis) {
    if (typeof window.Chart !== 'function') {
      return;
    }
    var shown = span(history, nowMillis);
    charts.forEach(function (c) {
      var datasets = c.spec.lines.map(function (line) {
        var points = [];
        if (history) {
          var t = history.timeMillis || [], v = history[line.key] || [];
          for (var i = 0; i < t.length; i++) {
            points.push({ x: (t[i] - nowMillis) / 1000, y: v[i] });
          }
        }
        return points;
      });
      if (!c.chart) {
        c.chart = new window.Chart(c.canvas, {
          type: 'line',
          data: { datasets: c.spec.lines.map(function (line, i) {
            return { label: line.label, data: datasets[i], borderColor: line.color, backgroundColor: line.color + '33',
              fill: !!line.fill, pointRadius: 0, borderWidth: line.width || 1.6, borderDash: line.dash || [],
              order: line.order === undefined ? i : line.order, tension: 0.25 };
          }) },
          options: {
            animation: false, responsive: true, maintainAspectRatio: false, parsing: false, normalized: true,
            interaction: { mode: 'index', intersect: false },
            plugins: {
              title: { display: true, text: c.spec.title, align: 'start', color: '#333',
                font: { size: 12, weight: '600' }, padding: { top: 0, bottom: 2 } },
              legend: { display: true, position: 'top', align: 'end',
                labels: { boxWidth: 10, boxHeight: 2, font: { size: 10 }, padding: 6,
                  sort: function (a, b) { return a.datasetIndex - b.datasetIndex; } } },
              tooltip: { callbacks: {
                title: function (items) { return items.length ? ago(items[0].parsed.x) : ''; },
                label: function (ctx) { return ctx.dataset.label + ': ' + c.spec.format(ctx.parsed.y); } } }
            },
            scales: {
              x: { type: 'linear', min: -shown, max: 0, grid: { color: '#eef0f3' },
                ticks: { stepSize: step(shown), font: { size: 10 }, callback: function (v) { return ago(v); } } },
              y: { beginAtZero: true, grace: '5%', grid: { color: '#eef0f3' },
                ticks: { maxTicksLimit: 4, precision: c.spec.precision, font: { size: 10 }, callback: function (v, i, ticks) {
                  return tickLabel(c.spec.format, v, i, ticks); } } }
            }
          }
        });
      } else {
        c.chart.data.datasets.forEach(function (d, i) { d.data = datasets[i]; });
        c.chart.options.scales.x.min = -shown;
        c.chart.options.scales.x.ticks.stepSize = step(shown);
        c.chart.update('none');
      }
    });
  }

  function destroyCharts(charts) {
    charts.forEach(function (c) {
      if (c.chart) {
        c.chart.destroy();
        c.chart = null;
      }
    });
  }

  // ---- sections --------------------------------------------------------------------------------

  function renderHealth(data) {
    var status = document.getElementById('smbd-status');
    status.textContent = 'Health: ' + data.health.status;
    status.className = 'smbd-badge ' + statusClass(data.health.status);
    var list = document.getElementById('smbd-health');
    while (list.firstChild) {
      list.removeChild(list.firstChild);
    }
    data.health.findings.forEach(function (f) {
      var level = f.split(' ', 1)[0];
      list.appendChild(el('li', { 'class': level.toLowerCase(), text: level === 'OK' ? f.substring(3) : f }));
    });
    document.getElementById('smbd-updated').textContent = 'updated ' + clock(data.timeMillis);
  }

  function renderProviders(data) {
    var container = document.getElementById('smbd-providers');
    var seen = {};
    (data.transport.providers || []).forEach(function (p) {
      seen[p.name] = true;
      var entry = providerCards[p.name];
      if (!entry) {
        var head = el('div', { 'class': 'smbd-card-head' });
        var caps = el('div', { 'class': 'smbd-caps' });
        var settings = el('div', { 'class': 'smbd-caps smbd-provider-settings' });
        var stats = el('div', { 'class': 'smbd-caps smbd-provider-statistics' });
        var block = chartBlock('smbd-provider-' + p.name);
        var card = el('div', { 'class': 'smbd-card', 'data-provider': p.name }, [head, caps, settings, stats, block.grid]);
        container.appendChild(card);
        entry = providerCards[p.name] = { card: card, head: head, caps: caps, settings: settings, stats: stats,
          charts: block.charts };
      }
      while (entry.head.firstChild) {
        entry.head.removeChild(entry.head.firstChild);
      }
      entry.head.appendChild(el('span', { 'class': 'name', text: p.name }));
      entry.head.appendChild(badge(p.selected ? 'selected' : 'standby', p.selected ? 'ok' : ''));
      entry.head.appendChild(el('span', { 'class': 'facts', text: p.transportType + ', ranking ' + p.ranking + ', '
        + p.connections + ' connection(s), ' + p.listeners + ' listener(s)' }));
      entry.caps.textContent = p.capabilities;
      entry.settings.textContent = p.settings ? 'Settings: ' + p.settings : '';
      entry.stats.textContent = p.statistics ? 'Statistics: ' + p.statistics : '';
      drawCharts(entry.charts, data.history.providers[p.name], data.timeMillis);
    });
    Object.keys(providerCards).forEach(function (name) {
      if (!seen[name]) {
        destroyCharts(providerCards[name].charts);
        container.removeChild(providerCards[name].card);
        delete providerCards[name];
      }
    });
    if ((data.transport.providers || []).length === 0 && !container.querySelector('.smbd-note')) {
      container.appendChild(el('p', { 'class': 'smbd-note', text: 'No RDMA provider: connections and listeners wait for one.' }));
    } else if ((data.transport.providers || []).length > 0) {
      var note = container.querySelector('.smbd-note');
      if (note) {
        container.removeChild(note);
      }
    }
  }

  function renderListeners(data) {
    var rows = (data.transport.listeners || []).map(function (l) {
      var state = el('td', null, [badge(l.state)]);
      return el('tr', { 'data-listener': l.name || l.address }, [
        td(l.name || '(API)'), td(l.address, 'addr'), td(l.provider || '-'), state,
        td(num(l.connectRequests), 'num'), td(num(l.accepted), 'num'), td(num(l.declined), 'num'),
        td(num(l.refused), 'num'), td(num(l.negotiationFailures), 'num'), td(num(l.negotiating), 'num'),
        td(num(l.connections), 'num'), td(l.stateDetail || '', 'wrap')]);
    });
    replaceRows('smbd-listeners', rows, 'No listener: add a smbdirect.listener configuration.', 12);
  }

  function renderListenerEvents(data) {
    var events = [];
    (data.transport.listeners || []).forEach(function (l) {
      (l.events || []).forEach(function (e) {
        events.push({ listener: l.name || l.address, e: e });
      });
    });
    events.sort(function (a, b) { return b.e.timestampMillis - a.e.timestampMillis; });
    var rows = events.slice(0, 32).map(function (x) {
      var e = x.e;
      return el('tr', { 'data-event': e.kind }, [td(clock(e.timestampMillis)), td(x.listener, 'addr'),
        el('td', null, [badge(e.kind)]), td(e.peerAddress || '-', 'addr'), td(e.provider),
        td(e.connectionId ? e.provider + '/' + e.connectionId : '-', 'num'), td(e.reasonKind || ''), td(e.rule || ''),
        td(e.detail || '', 'wrap')]);
    });
    replaceRows('smbd-listener-events', rows, 'No connection request since start.', 9);
  }

  /** A connection's id qualified by its provider (ids are numbered per provider): mock/17. */
  function key(c) {
    return c.provider + '/' + c.id;
  }

  function detailGroup(title, pairs) {
    var dl = el('dl');
    pairs.forEach(function (p) {
      dl.appendChild(el('dt', { text: p[0] }));
      dl.appendChild(el('dd', { text: String(p[1]), 'class': p[2] || '' }));
    });
    return el('div', null, [el('h4', { text: title }), dl]);
  }

  function connectionDetails(c) {
    var grid = el('div', { 'class': 'smbd-grid' });
    grid.appendChild(detailGroup('Negotiated', [
      ['Protocol', '0x' + ('0000' + Number(c.protocol).toString(16)).slice(-4)],
      ['MaxSendSize', bytes(c.maxSendSize)],
      ['MaxReceiveSize', bytes(c.maxReceiveSize)],
      ['MaxFragmentedSendSize', bytes(c.maxFragmentedSendSize)],
      ['MaxFragmentedRecvSize', bytes(c.maxFragmentedRecvSize)],
      ['MaxReadWriteSize', bytes(c.maxReadWriteSize)],
      ['KeepaliveInterval', duration(c.keepaliveIntervalMillis)],
      ['RDMA Reads in / out (IRD / ORD)', c.inboundReadDepth + ' / ' + c.outboundReadDepth]]));
    grid.appendChild(detailGroup('Credits', [
      ['SendCredits (held)', num(c.sendCredits)],
      ['SendCreditTarget', num(c.sendCreditTarget)],
      ['ReceiveCredits (posted)', num(c.receiveCredits)],
      ['posted, not yet granted', num(c.receiveCreditsUngranted)],
      ['granted to the peer', num(c.peerCredits)],
      ['ReceiveCreditTarget', num(c.receiveCreditTarget)],
      ['ReceiveCreditMax', num(c.receiveCreditMax), 'receiveCreditMax']]));
    grid.appendChild(detailGroup('State', [
      ['Local', c.localAddress],
      ['Created', clock(c.createdMillis)],
      ['KeepaliveRequested', c.keepaliveRequested],
      ['SendQueue', num(c.sendQueueDepth) + ' message(s)'],
      ['RDMA in flight', num(c.rdmaInFlight)],
      ['Registrations', num(c.registrations)]]));
    grid.appendChild(detailGroup('Counters (out / in)', [
      ['Messages', num(c.messagesSent) + ' / ' + num(c.messagesReceived)],
      ['Bytes', num(c.bytesSent) + ' / ' + num(c.bytesReceived)],
      ['Data Transfer messages', num(c.fragmentsSent) + ' / ' + num(c.fragmentsReceived)],
      ['Keepalives', num(c.keepalivesSent) + ' / ' + num(c.keepalivesReceived)],
      ['Credit grants sent', num(c.creditGrantsSent)],
      ['Credit stalls', num(c.creditStalls)],
      ['RDMA Reads / Writes', num(c.rdmaReads) + ' / ' + num(c.rdmaWrites)],
      ['RDMA bytes', num(c.rdmaBytes)]]));
    return grid;
  }

  function renderConnections(data) {
    var body = tbody('smbd-connections');
    var live = (data.transport.connections || []).slice().sort(function (a, b) {
      return a.provider === b.provider ? a.id - b.id : (a.provider < b.provider ? -1 : 1);
    });
    var seen = {};
    var empty = body.querySelector('tr.smbd-empty');
    if (empty) {
      body.removeChild(empty);
    }
    live.forEach(function (c) {
      var k = key(c);
      seen[k] = true;
      var r = connectionRows[k];
      var rates = data.rates[k] || {};
      if (!r) {
        var toggle = el('button', { type: 'button', title: 'details', 'aria-expanded': 'false', text: '\u25b8' });
        var cells = {
          id: td(k, 'num id'), role: td(c.role), state: el('td'), provider: td(c.provider), peer: td(c.peerAddress, 'addr'),
          out: td('', 'num'), inn: td('', 'num'), messages: td('', 'num'), credits: td('', 'num'), stalls: td('', 'num'),
          close: el('td', { 'class': 'actions' }, [postForm('close', { id: c.id, provider: c.provider }, 'Close',
            'smbd-danger smbd-close')])
        };
        var row = el('tr', { 'data-connection-id': String(c.id), 'data-key': k }, [el('td', { 'class': 'toggle' }, [toggle]),
          cells.id, cells.role, cells.state, cells.provider, cells.peer, cells.out, cells.inn, cells.messages, cells.credits,
          cells.stalls, cells.close]);
        var detailsCell = el('td', { colspan: '12' });
        var details = el('tr', { 'class': 'smbd-details', 'data-details-of': k, hidden: 'hidden' }, [detailsCell]);
        var block = chartBlock('smbd-connection-' + k.replace(/[^A-Za-z0-9]/g, '-'));
        r = connectionRows[k] = { row: row, cells: cells, details: details, detailsCell: detailsCell, grid: null,
          charts: block.charts, chartGrid: block.grid, toggle: toggle };
        toggle.addEventListener('click', function () {
          if (expanded[k]) {
            delete expanded[k];
          } else {
            expanded[k] = true;
          }
          showDetails(r, k, current);
          if (expanded[k]) {
            refresh();
          }
        });
      }
      body.appendChild(r.row);
      body.appendChild(r.details);
      r.cells.state.textContent = '';
      r.cells.state.appendChild(badge(c.state));
      r.cells.out.textContent = rate(rates.bytesSentPerSecond);
      r.cells.inn.textContent = rate(rates.bytesReceivedPerSecond);
      r.cells.messages.textContent = num(c.messagesSent) + ' / ' + num(c.messagesReceived);
      r.cells.credits.textContent = num(c.sendCredits) + ' / ' + num(c.peerCredits);
      r.cells.stalls.textContent = num(c.creditStalls);
      r.last = c;
      showDetails(r, k, data);
    });
    Object.keys(connectionRows).forEach(function (k) {
      if (!seen[k]) {
        var r = connectionRows[k];
        destroyCharts(r.charts);
        if (r.row.parentNode) {
          body.removeChild(r.row);
        }
        if (r.details.parentNode) {
          body.removeChild(r.details);
        }
        delete connectionRows[k];
        delete expanded[k];
      }
    });
    if (live.length === 0) {
      var cell = td('No live connection. "Open test connection" connects to the first open listener.', 'empty');
      cell.setAttribute('colspan', '12');
      body.appendChild(el('tr', { 'class': 'smbd-empty' }, [cell]));
    }
    document.getElementById('smbd-connection-count').textContent = live.length ? '(' + live.length + ')' : '';
  }

  function showDetails(r, k, data) {
    var open = !!expanded[k];
    r.toggle.textContent = open ? '\u25be' : '\u25b8';
    r.toggle.setAttribute('aria-expanded', String(open));
    if (!open) {
      r.details.setAttribute('hidden', 'hidden');
      return;
    }
    r.details.removeAttribute('hidden');
    var grid = connectionDetails(r.last);
    if (r.grid) {
      r.detailsCell.replaceChild(grid, r.grid);
    } else {
      r.detailsCell.appendChild(grid);
      r.detailsCell.appendChild(r.chartGrid);
    }
    r.grid = grid;
    var history = data.history.connections[k];
    if (history) {
      drawCharts(r.charts, history, data.timeMillis);
    }
  }

  function renderClosed(data) {
    var rows = (data.transport.recentlyClosed || []).slice(0, 20).map(function (c) {
      return el('tr', null, [td(key(c), 'num id'), td(c.role), td(c.provider), td(c.peerAddress, 'addr'), td(clock(c.closedMillis)),
        td(c.closeReason, 'wrap'), td(num(c.messagesSent) + ' / ' + num(c.messagesReceived), 'num'), td(num(c.creditStalls), 'num')]);
    });
    replaceRows('smbd-closed', rows, 'None since start.', 8);
    var t = data.transport;
    var last = (t.negotiationFailureEvents || [])[0];
    document.getElementById('smbd-failures').textContent = 'Negotiation failures since start: ' + num(t.negotiationFailures)
      + (last ? '; last: ' + last.role + ' connection ' + last.provider + '/' + last.connectionId + ' peer ' + (last.peerAddress || '-') + ' '
        + last.reasonKind + (last.rule ? ' ' + last.rule : '') + (last.detail ? ': ' + last.detail : '') : '') + '.';
  }

  var SETTINGS = [
    ['receiveCreditMax', 'Receive credit max', function (v) { return num(v) + ' credits'; }],
    ['sendCreditTarget', 'Send credit target', function (v) { return num(v) + ' credits'; }],
    ['maxSendSize', 'Max send size', bytes],
    ['maxReceiveSize', 'Max receive size', bytes],
    ['maxFragmentedRecvSize', 'Max fragmented receive size', bytes],
    ['maxReadWriteSize', 'Max read/write size', bytes],
    ['keepaliveIntervalSeconds', 'Keepalive interval', seconds],
    ['keepaliveResponseTimeoutSeconds', 'Keepalive response timeout', seconds],
    ['activeNegotiationTimeoutSeconds', 'Active negotiation timeout', seconds],
    ['passiveNegotiationTimeoutSeconds', 'Passive negotiation timeout', seconds],
    ['creditGrantTimeoutMillis', 'Credit grant timeout', function (v) { return v === 0 ? 'disabled' : duration(v); }],
    ['creditRefillFraction', 'Credit refill threshold', function (v) { return Math.round(v * 1000) / 10 + ' % of the target'; }],
    ['inboundReadDepth', 'Inbound read depth (IRD)', function (v) { return num(v) + ' reads'; }],
    ['outboundReadDepth', 'Outbound read depth (ORD)', function (v) { return num(v) + ' reads'; }],
    ['maxConnectionsPerListener', 'Max connections per listener', num],
    ['maxNegotiatingPerListener', 'Max negotiating per listener', num],
    ['receiveBufferBudgetMB', 'Receive buffer budget', function (v) { return bytes(v * 1048576); }],
    ['drainTimeoutSeconds', 'Drain timeout', function (v) { return v === 0 ? 'close at once' : seconds(v); }],
    ['provider.target', 'RDMA provider filter', function (v) { return v === null || v === undefined ? '-' : String(v); }]
  ];

  function renderSettings(data) {
    var s = data.transport.settings;
    var rows = [];
    if (s) {
      for (var i = 0; i < SETTINGS.length; i += 2) {
        var cells = [];
        [SETTINGS[i], SETTINGS[i + 1]].forEach(function (def) {
          if (!def) {
            return;
          }
          var value = td(def[2](s[def[0]]), 'value ' + def[0].replace(/\./g, '_'));
          value.setAttribute('data-value', String(s[def[0]]));
          cells.push(td(def[1], 'label'), value, td(def[0], 'attr'));
        });
        rows.push(el('tr', null, cells));
      }
    }
    replaceRows('smbd-settings', rows, 'Not reported.', 6);
  }

  function render(data) {
    current = data;
    renderHealth(data);
    renderProviders(data);
    renderListeners(data);
    renderListenerEvents(data);
    renderConnections(data);
    renderClosed(data);
    renderSettings(data);
    root.setAttribute('data-rendered', String(data.timeMillis));
  }

  // ---- refresh ---------------------------------------------------------------------------------

  function refresh() {
    if (inFlight) {
      return;
    }
    inFlight = true;
    var query = Object.keys(expanded).map(function (k) { return 'connection=' + encodeURIComponent(k); }).join('&');
    fetch(jsonUrl + (query ? '?' + query : ''), { credentials: 'same-origin', cache: 'no-store' })
      .then(function (r) {
        if (!r.ok) {
          throw new Error('HTTP ' + r.status);
        }
        return r.json();
      })
      .then(function (data) {
        render(data);
      })
      .catch(function (e) {
        document.getElementById('smbd-updated').textContent = 'refresh failed: ' + e.message;
      })
      .then(function () {
        inFlight = false;
      });
  }

  function schedule() {
    if (timer) {
      clearInterval(timer);
      timer = null;
    }
    if (document.getElementById('smbd-live').checked) {
      timer = setInterval(function () {
        if (!document.hidden) {
          refresh();
        }
      }, refreshMillis);
    }
  }

  document.getElementById('smbd-live').addEventListener('change', schedule);
  var initial = document.getElementById('smbd-initial');
  if (initial) {
    render(JSON.parse(initial.textContent));
  }
  schedule();
}());
