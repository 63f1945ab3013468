// brson view: the page.  Server mode asks the local server (every URL carries the token);
// static mode (--html) reads the same answers from the JSON inlined in the page.  Text from
// the file is only ever put into the page as text (textContent), never parsed as HTML.
(function () {
  'use strict';
  const body = document.body;
  const MODE = body.dataset.mode;
  const TOKEN = body.dataset.token || '';
  const DATA = MODE === 'static' ? JSON.parse(document.getElementById('brson-data').textContent) : null;
  const $ = (id) => document.getElementById(id);
  const state = { selected: null, detail: null, info: null, findingKeys: new Map(), viewer: null };

  // -- data access -------------------------------------------------------------------------
  function url(path, params) {
    const q = new URLSearchParams(params || {});
    q.set('token', TOKEN);
    return path + '?' + q.toString();
  }
  async function api(name, params) {
    if (DATA) return local(name, params || {});
    const response = await fetch(url('/api/' + name, params));
    const value = await response.json();
    if (!response.ok) throw new Error(value.error || response.statusText);
    return value;
  }
  function local(name, p) {
    switch (name) {
      case 'info': return DATA.info;
      case 'children': return DATA.children[p.key];
      case 'slot': return DATA.details[p.key];
      case 'findings': return DATA.findings;
      case 'reveal': {
        const parts = p.key.split('.');
        const lists = [];
        for (let i = 1; i < parts.length; i++) lists.push(DATA.children[parts.slice(0, i).join('.')]);
        return { key: p.key, lists };
      }
      case 'target': {
        const key = DATA.ids[p.id];
        return key ? { key, kind: 'element', label: p.id } : null;
      }
      case 'incoming': return DATA.details[p.key].incoming;
      case 'search': return localSearch(p.q, p.mode);
      case 'flux': return DATA.flux;
    }
    throw new Error('unknown request ' + name);
  }
  function localSearch(query, mode) {
    // The same rules as ViewData.search (brson/view/data.py), over the inlined index.
    const text = query.trim().toLowerCase();
    const results = [];
    let total = 0;
    if (!text) return { query, total, results };
    if ((mode === 'all' || mode === 'id') && DATA.ids[text]) {
      results.push({ key: DATA.ids[text], match: 'element ' + text });
      total++;
    }
    for (const [key, name, id, types] of DATA.index) {
      let match = null;
      if ((mode === 'all' || mode === 'name') && name.toLowerCase().includes(text)) match = 'name';
      else if ((mode === 'all' || mode === 'type') && types.includes(text)) match = 'component type';
      else if ((mode === 'all' || mode === 'id') && id.toLowerCase().includes(text)) match = 'slot ID';
      if (match === null || (match === 'slot ID' && id === text && results.length)) continue;
      total++;
      if (results.length < 200) results.push({ key, name, id, match });
    }
    return { query, total, results };
  }
  function assetURL(hash) { return DATA ? DATA.assets[hash] : url('/api/asset/' + hash); }

  // -- DOM helpers -------------------------------------------------------------------------
  function el(tag, attrs, ...kids) {
    const node = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === null || v === undefined || v === false) continue;
      if (k === 'class') node.className = v;
      else if (k === 'text') node.textContent = v;
      else if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
      else node.setAttribute(k, v === true ? '' : v);
    }
    for (const kid of kids) if (kid !== null && kid !== undefined) node.append(kid);
    return node;
  }
  // Resonite's rich-text tags (<color=#6700FF>, <b>, <size=50%>...) are shown stripped in the
  // tree and titles; the raw name stays in the row's tooltip and in the Name field.
  const RICH = /<\/?(?:color|b|i|u|s|size|sub|sup|mark|alpha|align|font|br|nobr|noparse|lowercase|uppercase|smallcaps|gradient|sprite|rotate|voffset|cspace|mspace|pos|indent|line-height|margin|width|closeall)(?:=[^<>]*)?>/gi;
  const plain = (name) => (name || '').replace(RICH, '') || '(no name)';
  function status(text) { $('status').textContent = text; }
  function fail(error) { status('error: ' + error.message); console.warn(error); }

  // -- the tree ----------------------------------------------------------------------------
  const nodes = new Map(); // key -> {node, row, kids, loaded, summary}

  function makeNode(summary) {
    const twisty = el('span', { class: 'twisty', text: summary.children ? '▸' : '' });
    const name = el('span', { class: 'name', text: plain(summary.name) });
    const comps = el('span', { class: 'comps', text: summary.components.join(' ') + (summary.component_count > summary.components.length ? ' …' : '') });
    const row = el('div', { class: 'row', role: 'treeitem', title: (summary.name || '') + (summary.id ? '\n' + summary.id : '') }, twisty, name, comps);
    const kids = el('div', { class: 'kids', role: 'group', hidden: true });
    const node = el('div', { class: 'node' + (summary.active ? '' : ' inactive'), 'data-key': summary.key }, row, kids);
    const item = { node, row, kids, twisty, loaded: false, open: false, summary };
    nodes.set(summary.key, item);
    const count = summary.findings || state.findingKeys.get(summary.key);
    if (count) row.append(el('span', { class: 'badge', title: 'findings', text: String(count) }));
    twisty.addEventListener('click', (ev) => { ev.stopPropagation(); toggle(summary.key); });
    row.addEventListener('click', () => go(summary.key));
    row.addEventListener('dblclick', () => toggle(summary.key));
    return item;
  }

  function fill(item, list) {
    // Rows for one page of children (list.offset .. offset + rows), with "more" links around.
    item.kids.replaceChildren();
    if (list.offset > 0) item.kids.append(moreRow(item, list.key, 0, `… ${list.offset} earlier children`));
    for (const summary of list.children) item.kids.append(makeNode(summary).node);
    const end = list.offset + list.children.length;
    if (end < list.total) item.kids.append(moreRow(item, list.key, end, `… ${list.total - end} more children`, list.offset));
    item.loaded = true;
  }
  function moreRow(item, key, offset, text, keepFrom) {
    const row = el('div', { class: 'more', text });
    row.addEventListener('click', async () => {
      const page = await api('children', { key, offset });
      if (keepFrom !== undefined) {  // append the next page in place
        row.remove();
        for (const summary of page.children) item.kids.append(makeNode(summary).node);
        const end = page.offset + page.children.length;
        if (end < page.total) item.kids.append(moreRow(item, key, end, `… ${page.total - end} more children`, 0));
      } else fill(item, page);
    });
    return row;
  }
  async function open(key, list) {
    const item = nodes.get(key);
    if (!item || !item.summary.children) return;
    if (list) fill(item, list);
    else if (!item.loaded) fill(item, await api('children', { key }));
    item.kids.hidden = false;
    item.open = true;
    item.twisty.textContent = '▾';
  }
  function close(key) {
    const item = nodes.get(key);
    if (!item) return;
    item.kids.hidden = true;
    item.open = false;
    item.twisty.textContent = item.summary.children ? '▸' : '';
  }
  async function toggle(key) {
    const item = nodes.get(key);
    if (item && item.open) close(key); else await open(key).catch(fail);
  }
  async function reveal(key) {
    // Open the tree down to a slot: one request gives every ancestor's children.
    const parts = key.split('.');
    let missing = false;
    for (let i = 1; i < parts.length; i++) {
      const item = nodes.get(parts.slice(0, i).join('.'));
      if (!item || !item.loaded || !nodes.has(parts.slice(0, i + 1).join('.'))) { missing = true; break; }
    }
    if (missing) {
      const answer = await api('reveal', { key });
      let listKey = '0';
      for (let n = 0; n < answer.lists.length; n++) {
        // The server leaves keys out (each is as long as its depth): list n is the children
        // of the path's slot at depth n, a child's key is the list's plus its index.
        const list = answer.lists[n];
        if (n) listKey += '.' + parts[n];
        list.key = listKey;
        list.children.forEach((s, j) => { if (s.key === undefined) s.key = `${listKey}.${list.offset + j}`; });
        const item = nodes.get(list.key);
        const child = key.split('.').slice(0, list.key.split('.').length + 1).join('.');
        if (item && (!item.loaded || !nodes.has(child))) fill(item, list);
        await open(list.key);
      }
    } else {
      for (let i = 1; i < parts.length; i++) await open(parts.slice(0, i).join('.'));
    }
    return nodes.get(key);
  }

  function keyboard(ev) {
    // Arrow keys walk the visible rows (Up/Down), open or enter (Right), close or leave (Left).
    if (!state.selected || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const item = nodes.get(state.selected);
    if (!item) return;
    const rows = [...document.querySelectorAll('#tree .node > .row')].filter((r) => r.offsetParent !== null);
    const at = rows.indexOf(item.row);
    const keyOf = (row) => row.parentElement.dataset.key;
    let next = null;
    if (ev.key === 'ArrowDown' && at + 1 < rows.length) next = keyOf(rows[at + 1]);
    else if (ev.key === 'ArrowUp' && at > 0) next = keyOf(rows[at - 1]);
    else if (ev.key === 'ArrowRight' && item.summary.children) {
      if (!item.open) { open(state.selected).catch(fail); ev.preventDefault(); return; }
      next = state.selected + '.0';
    } else if (ev.key === 'ArrowLeft') {
      if (item.open) { close(state.selected); ev.preventDefault(); return; }
      if (state.selected !== '0') next = state.selected.split('.').slice(0, -1).join('.');
    } else return;
    ev.preventDefault();
    if (next) go(next);
  }

  // -- selection and history -----------------------------------------------------------------
  // Every selection is a location hash (#key=0.1.2&c=3), so back/forward are the browser's.
  function go(key, component, member) {
    const h = new URLSearchParams({ key });
    if (component !== undefined && component !== null) h.set('c', component);
    if (member) h.set('m', member);
    const hash = '#' + h.toString();
    if (location.hash === hash) select(key, component, member).catch(fail);
    else location.hash = hash;
  }
  function fromHash() {
    const h = new URLSearchParams(location.hash.slice(1));
    const key = h.get('key');
    if (key) select(key, h.get('c'), h.get('m')).catch(fail);
  }
  async function select(key, component, member) {
    const item = await reveal(key);
    if (!item) throw new Error('no slot ' + key);
    for (const row of document.querySelectorAll('.row.selected')) row.classList.remove('selected');
    item.row.classList.add('selected');
    item.row.classList.remove('flash');
    void item.row.offsetWidth; // restart the animation
    item.row.classList.add('flash');
    item.row.scrollIntoView({ block: 'center' });
    state.selected = key;
    const detail = await api('slot', { key });
    state.detail = detail;
    inspect(detail, component, member);
    if (state.viewer) state.viewer.highlight(detail.id);
    body.dataset.selected = key;
    incoming(key).catch(fail);
    fluxPane(key).catch(fail);
  }

  // -- the ProtoFlux graph pane --------------------------------------------------------------
  // The nodes under the selected slot at their slots' positions (x right, y up, as on the
  // canvas in the world), the value and impulse connections between them; a click on a node
  // selects its slot.  The file's graph is asked for once; each selection filters it by key.
  const SVG = 'http://www.w3.org/2000/svg';
  const svg = (tag, attrs, ...kids) => {
    const node = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (k === 'text') node.textContent = v; else if (k.startsWith('on')) node.addEventListener(k.slice(2), v); else node.setAttribute(k, v);
    }
    for (const kid of kids) node.append(kid);
    return node;
  };
  async function fluxPane(key) {
    if (!state.flux) state.flux = await api('flux');
    if (state.selected !== key) return;
    const inside = (k) => k === key || k.startsWith(key + '.');
    const shown = state.flux.nodes.filter((n) => inside(n.key));
    const pane = $('flux');
    const graph = $('flux-graph');
    body.dataset.flux = String(shown.length);
    pane.hidden = shown.length === 0;
    graph.replaceChildren();
    if (!shown.length) return;
    const byId = new Map(shown.map((n) => [n.id, n]));
    const edges = state.flux.edges.filter((e) => byId.has(e.from) && byId.has(e.to));
    $('flux-status').textContent = `${shown.length} nodes, ${edges.length} connections`;
    const SCALE = 1000, W = 130, H = 22; // px per metre of canvas; node box
    const xs = shown.map((n) => n.x * SCALE), ys = shown.map((n) => -n.y * SCALE);
    const minX = Math.min(...xs) - W, minY = Math.min(...ys) - H;
    const width = Math.max(...xs) - minX + W * 2, height = Math.max(...ys) - minY + H * 2;
    graph.setAttribute('viewBox', `${minX} ${minY} ${width} ${height}`);
    const at = (n) => [n.x * SCALE, -n.y * SCALE];
    for (const e of edges) {
      const [x1, y1] = at(byId.get(e.from)), [x2, y2] = at(byId.get(e.to));
      graph.append(svg('line', { class: 'flux-edge ' + e.kind, x1: x1 + W / 2, y1, x2: x2 - W / 2, y2 }, svg('title', { text: `${e.kind}: ${e.label}` })));
    }
    for (const n of shown) {
      const [x, y] = at(n);
      const box = svg('g', { class: 'flux-node' + (n.key === key ? ' selected' : ''), 'data-id': n.id, 'data-key': n.key, transform: `translate(${x - W / 2} ${y - H / 2})`, onclick: () => go(n.key) },
        svg('rect', { width: W, height: H }), svg('text', { x: 4, y: 14, text: n.type.length > 22 ? n.type.slice(0, 21) + '…' : n.type }), svg('title', { text: `${n.type}\n${n.id}` }));
      graph.append(box);
    }
  }
  async function incoming(key) {
    // Referenced by: from the worker's reference graph, asked for after the inspector shows.
    const refs = await api('incoming', { key });
    if (state.selected !== key || !refs.length) return;
    const box = card('Referenced by', `${refs.length}`, el('ul', { class: 'plain' }, ...refs.map((r) => el('li', {},
      r.key ? el('a', { class: 'ref', text: r.from, onclick: () => go(r.key, r.component) }) : el('span', { text: r.from }),
      el('span', { class: 'euler', text: ' → ' + r.to })))));
    box.id = 'incoming';
    $('inspector').append(box);
  }
  async function refresh() {
    // The worker's graph is ready: show the selected slot again with its links resolved.
    if (!state.detail || !state.detail.pending) return;
    const key = state.selected;
    const detail = await api('slot', { key });
    if (state.selected !== key) return;
    const top = $('inspector').scrollTop;
    state.detail = detail;
    inspect(detail);
    $('inspector').scrollTop = top;
    incoming(key).catch(fail);
  }

  // -- the inspector -----------------------------------------------------------------------
  function inspect(d, component, member) {
    const pane = $('inspector');
    pane.replaceChildren(
      el('h1', { text: plain(d.name), title: d.name }),
      el('div', { class: 'path', text: d.path }),
      el('div', { class: 'id', text: d.id ? 'ID ' + d.id : 'no ID' }),
    );
    if (d.findings.length) {
      pane.append(card('Findings', null, el('ul', { class: 'plain' }, ...d.findings.map((f) =>
        el('li', { class: 'sev-' + f.severity, text: `${f.code} ${f.severity}: ${f.message}` })))));
    }
    pane.append(card('Slot', null, fieldTable(d.members, null)));
    let target = null;
    for (const c of d.components) {
      const box = card(c.short, c.type, fieldTable(c.fields, String(c.index) === String(component) ? member : null));
      box.dataset.component = c.index;
      if (c.id) box.querySelector('h2').title = 'ID ' + c.id;
      pane.append(box);
      if (String(c.index) === String(component)) target = box;
    }
    if (target) {
      target.classList.add('flash');
      target.scrollIntoView({ block: 'start' });
    } else pane.scrollTop = 0;
  }
  function card(title, sub, content) {
    return el('div', { class: 'card' }, el('h2', {}, el('span', { text: title }), sub ? el('span', { class: 'full', text: sub }) : null), content);
  }
  function fieldTable(fields, hit) {
    const table = el('table', { class: 'fields' });
    for (const f of fields) {
      table.append(el('tr', { class: f.name === hit ? 'hit' : null, title: f.id ? 'ID ' + f.id : null },
        el('td', { text: f.name }), el('td', {}, value(f.value))));
    }
    return table;
  }
  const fmt = (n) => typeof n === 'number' ? String(Math.round(n * 1e5) / 1e5) : String(n);
  function toSRGB(c) { return c <= 0.0031308 ? 12.92 * c : 1.055 * Math.pow(c, 1 / 2.4) - 0.055; }
  function swatch(v, linear) {
    const ch = v.slice(0, 3).map((c) => Math.round(255 * Math.min(1, Math.max(0, linear ? toSRGB(c) : c))));
    return el('span', { class: 'swatch', style: `background: rgba(${ch.join(',')},${Math.min(1, Math.max(0, v[3]))})` });
  }
  function value(v) {
    switch (v.t) {
      case 'null': return el('span', { class: 'null', text: 'null' });
      case 'bool': case 'int': case 'float': return el('span', { class: 'num', text: fmt(v.v) });
      case 'str': return el('span', { class: 'str', text: JSON.stringify(v.v) });
      case 'enum': return el('span', { class: 'enum', text: v.v });
      case 'id': return el('span', { class: 'num', title: 'an ID this slot defines', text: v.v });
      case 'binary': return el('span', { class: 'null', text: `binary, ${v.size} bytes` });
      case 'float2': case 'float3': case 'float4':
        return el('span', { class: 'num', title: v.t, text: '(' + v.v.map(fmt).join(', ') + ')' });
      case 'floatQ':
        return el('span', { class: 'num', title: 'floatQ (x, y, z, w)' }, '(' + v.v.map(fmt).join(', ') + ')',
          el('div', { class: 'euler', text: 'Euler ' + v.euler.map((a) => fmt(a) + '°').join(', ') }));
      case 'color': case 'colorX':
        return el('span', { class: 'num', title: v.t + (v.profile ? ' ' + v.profile : '') },
          swatch(v.v, v.profile !== 'sRGB'), '(' + v.v.map(fmt).join(', ') + ')' + (v.profile ? ' ' + v.profile : ''));
      case 'float3x3': case 'float4x4': {
        const n = v.t === 'float3x3' ? 3 : 4;
        const t = el('table', { class: 'matrix', title: v.t });
        for (let r = 0; r < n; r++) t.append(el('tr', {}, ...v.v.slice(r * n, r * n + n).map((x) => el('td', { text: fmt(x) }))));
        return t;
      }
      case 'uri': {
        const span = el('span', { class: 'uri', text: v.v });
        if (v.asset && v.image) {
          const img = el('img', { class: 'texture', alt: 'texture ' + v.asset, src: assetURL(v.asset) });
          return el('span', {}, span, img);
        }
        return span;
      }
      case 'ref': {
        if (v.pending) {
          // Not resolved yet (the worker is still indexing): resolved when followed.
          return el('a', { class: 'ref', title: 'resolving…', text: '→ ' + v.v, onclick: () => api('target', { id: v.v })
            .then((t) => t && t.key ? go(t.key, t.component, t.member) : status('external reference ' + v.v)).catch(fail) });
        }
        if (!v.target) return el('span', {}, el('span', { class: 'num', text: v.v }), el('span', { class: 'external', text: ' (external: not in this file)' }));
        const t = v.target;
        if (t.key === null || t.key === undefined) return el('span', { class: 'num', text: `${t.label} (${t.kind})` });
        return el('a', { class: 'ref', title: v.v, 'data-target': t.key, text: `→ ${t.label}`, onclick: () => go(t.key, t.component, t.member) });
      }
      case 'doc': return fieldTable(v.fields, null);
      case 'list': {
        if (!v.items.length) return el('span', { class: 'null', text: '[] empty list' });
        const list = el('ol', { start: 0 }, ...v.items.map((x) => el('li', {}, value(x))));
        if (v.items.length < 8) return list;
        const d = el('details', {}, el('summary', { text: `${v.size} items` }), list);
        return d;
      }
    }
    return el('span', { text: JSON.stringify(v) });
  }

  // -- search and findings -----------------------------------------------------------------
  async function search(ev) {
    ev.preventDefault();
    const q = $('search').value;
    const answer = await api('search', { q, mode: $('search-mode').value });
    const list = $('result-list');
    list.replaceChildren(...answer.results.map((r) => el('li', { 'data-key': r.key, onclick: () => go(r.key) },
      el('span', { text: r.name !== undefined ? plain(r.name) : r.key }),
      el('span', { class: 'euler', text: ' ' + r.match }))));
    $('results').hidden = false;
    $('results').querySelector('h2').firstChild.textContent = `Search results: ${answer.total}${answer.total > answer.results.length ? ' (first ' + answer.results.length + ')' : ''} `;
    if (answer.pending) status('the search index is still being built; results by exact ID only');
    if (answer.results.length === 1) go(answer.results[0].key);
  }
  async function findings() {
    const answer = await api('findings');
    if (answer.targets || answer.ready) refresh().catch(fail);
    if (!answer.ready) { setTimeout(() => findings().catch(fail), 700); $('finding-counts').textContent = '(checking…)'; return; }
    const c = answer.counts || {};
    $('finding-counts').textContent = answer.error ? '(' + answer.error + ')' : `${c.error || 0} errors, ${c.warning || 0} warnings, ${c.info || 0} info`;
    $('finding-list').replaceChildren(...answer.findings.map((f) => el('li', { class: 'sev-' + f.severity, title: f.path || '', onclick: f.key ? () => go(f.key) : null, text: `${f.code} ${f.message}` })));
    for (const f of answer.findings) if (f.key) state.findingKeys.set(f.key, (state.findingKeys.get(f.key) || 0) + 1);
    for (const [key, n] of state.findingKeys) {
      const item = nodes.get(key);
      if (item && !item.row.querySelector('.badge')) item.row.append(el('span', { class: 'badge', title: 'findings', text: String(n) }));
    }
    body.dataset.findings = 'ready';
  }

  // -- the 3D viewport ---------------------------------------------------------------------
  function viewport() {
    const T = window.THREE;
    const canvas = $('canvas');
    const renderer = new T.WebGLRenderer({ canvas, antialias: true, preserveDrawingBuffer: true });
    renderer.setPixelRatio(window.devicePixelRatio || 1);
    const scene = new T.Scene();
    scene.background = new T.Color(0x15181e);
    const camera = new T.PerspectiveCamera(50, 1, 0.01, 10000);
    camera.position.set(2, 1.5, 3);
    const controls = new T.OrbitControls(camera, canvas);
    scene.add(new T.HemisphereLight(0xffffff, 0x404050, 2.2));
    const sun = new T.DirectionalLight(0xffffff, 1.5);
    sun.position.set(3, 5, 2);
    scene.add(sun);
    const grid = new T.GridHelper(4, 8, 0x3a4250, 0x2a303b);
    scene.add(grid);
    let model = null;
    let box = null;
    const byId = new Map();
    function resize() {
      const w = canvas.clientWidth || 300, h = canvas.clientHeight || 200;
      renderer.setSize(w, h, false);
      camera.aspect = w / h;
      camera.updateProjectionMatrix();
    }
    function draw() { renderer.render(scene, camera); }
    controls.addEventListener('change', draw);
    new ResizeObserver(() => { resize(); draw(); }).observe(canvas);
    resize();
    draw();
    function frame(object) {
      const bounds = new T.Box3().setFromObject(object);
      if (bounds.isEmpty()) return;
      const size = bounds.getSize(new T.Vector3()).length() || 1;
      const center = bounds.getCenter(new T.Vector3());
      controls.target.copy(center);
      camera.position.copy(center).add(new T.Vector3(0.6, 0.45, 0.9).multiplyScalar(size));
      camera.near = size / 1000; camera.far = size * 100;
      camera.updateProjectionMatrix();
      grid.scale.setScalar(Math.max(size / 4, 0.01));
      grid.position.y = bounds.min.y;
      controls.update();
    }
    async function glbBytes(key) {
      // The bytes themselves, parsed by GLTFLoader.parse: static mode decodes the inlined
      // base64, server mode fetches the subtree's GLB (nothing else is ever fetched).
      if (DATA) {
        if (!DATA.glb) return null;
        const text = atob(DATA.glb);
        const bytes = new Uint8Array(text.length);
        for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
        return bytes.buffer;
      }
      const response = await fetch(url('/api/glb', { key }));
      if (!response.ok) throw new Error((await response.json()).error || response.statusText);
      return response.arrayBuffer();
    }
    async function load(key) {
      $('viewport-status').textContent = 'loading 3D…';
      let buffer;
      try { buffer = await glbBytes(key); } catch (error) {
        $('viewport-status').textContent = '3D: ' + error.message; body.dataset.viewport = 'failed'; return;
      }
      if (!buffer) { $('viewport-status').textContent = 'no 3D data'; body.dataset.viewport = 'failed'; return; }
      new T.GLTFLoader().parse(buffer, '', (gltf) => {
        if (model) scene.remove(model);
        model = gltf.scene;
        scene.add(model);
        byId.clear();
        let gizmos = 0;
        const bounds = new T.Box3().setFromObject(model);
        const size = bounds.isEmpty() ? 1 : bounds.getSize(new T.Vector3()).length() || 1;
        model.traverse((o) => {
          const id = o.userData && o.userData.resonite_id;
          if (id && !byId.has(id)) {
            byId.set(id, o);
            if (gizmos++ < 2000) { const axes = new T.AxesHelper(size * 0.04); axes.userData.gizmo = true; o.add(axes); }
          }
        });
        frame(model);
        if (state.detail) highlight(state.detail.id); else draw();
        $('viewport-status').textContent = `${byId.size} slots`;
        body.dataset.viewport = 'loaded';
      }, (error) => { $('viewport-status').textContent = '3D: ' + (error.message || error); body.dataset.viewport = 'failed'; });
    }
    function highlight(id) {
      if (box) { scene.remove(box); box = null; }
      const object = id && byId.get(id);
      if (object) { box = new T.BoxHelper(object, 0xe0b341); scene.add(box); }
      draw();
    }
    const ray = new T.Raycaster();
    canvas.addEventListener('click', (ev) => {
      if (!model) return;
      const r = canvas.getBoundingClientRect();
      ray.setFromCamera(new T.Vector2(((ev.clientX - r.left) / r.width) * 2 - 1, -((ev.clientY - r.top) / r.height) * 2 + 1), camera);
      const hit = ray.intersectObject(model, true).find((h) => h.object.isMesh);
      let o = hit && hit.object;
      while (o && !(o.userData && o.userData.resonite_id)) o = o.parent;
      if (o) api('target', { id: o.userData.resonite_id }).then((t) => t && t.key && go(t.key)).catch(fail);
    });
    return { load, highlight, draw };
  }

  // -- start -------------------------------------------------------------------------------
  async function start() {
    $('back').addEventListener('click', () => history.back());
    $('forward').addEventListener('click', () => history.forward());
    $('search-form').addEventListener('submit', (ev) => search(ev).catch(fail));
    $('close-results').addEventListener('click', () => { $('results').hidden = true; });
    window.addEventListener('hashchange', fromHash);
    $('tree-pane').addEventListener('keydown', keyboard);
    const t0 = performance.now();
    const info = await api('info');
    state.info = info;
    $('file').textContent = info.file;
    $('file').title = `${info.generation} ${info.version || ''}, ${info.types} types`;
    document.title = info.file + ' - brson view';
    const root = makeNode(info.root);
    $('tree').append(root.node);
    await open('0');
    body.dataset.tree = 'ready';
    window.brsonView.firstPaint = performance.now() - t0;
    status(`${info.generation}${info.version ? ' ' + info.version : ''}`);
    try {
      state.viewer = window.THREE ? viewport() : null;
    } catch (error) {
      $('viewport-status').textContent = '3D unavailable: ' + error.message;
    }
    $('load-3d').addEventListener('click', () => state.viewer && state.viewer.load(state.selected || '0'));
    // The whole file in 3D when it is small; a large world's slot on request.
    if (state.viewer && (DATA || info.file_bytes < 8 * 1024 * 1024)) state.viewer.load('0');
    findings().catch(fail);
    if (location.hash) fromHash(); else go('0');
  }
  window.brsonView = { select, go, api, firstPaint: null };
  start().catch(fail);
})();
