/**
 * The studio's way to the server: `api.get`/`api.post`/`api.page` send the bearer token the user
 * gave (kept for the tab only, in `sessionStorage`) and turn an error body into an `Error` with its
 * `code`; a 401 asks for the token. `followStream` reads a run's server-sent events through `fetch`
 * (an `EventSource` cannot send the token) and hands each message to its callback; a 204 is a
 * stream with nothing more to send.
 */
export const API_SCRIPT = `
  const TOKEN_KEY = 'statecrew.token';
  const studio = { token: sessionStorage.getItem(TOKEN_KEY) || '' };
  const $ = (id) => document.getElementById(id);
  const make = (tag, className, text) => {
    const e = document.createElement(tag);
    if (className) e.className = className;
    if (text !== undefined) e.textContent = String(text);
    return e;
  };
  const authHeaders = (extra) => {
    const headers = Object.assign({}, extra);
    if (studio.token) headers.Authorization = 'Bearer ' + studio.token;
    return headers;
  };
  const failure = async (res) => {
    let body = {};
    try { body = (await res.json()).error || {}; } catch (_) { body = {}; }
    const error = new Error(body.message || 'HTTP ' + res.status);
    error.code = body.code || 'http_' + res.status;
    error.status = res.status;
    if (res.status === 401) askToken(error.message);
    return error;
  };
  const request = async (method, path, body, as) => {
    const init = { method, headers: authHeaders(body === undefined ? {} : { 'Content-Type': 'application/json' }) };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await fetch(path, init);
    if (!res.ok) throw await failure(res);
    return as === 'text' ? res.text() : res.json();
  };
  const api = {
    get: (path) => request('GET', path),
    post: (path, body) => request('POST', path, body === undefined ? {} : body),
    page: (path) => request('GET', path, undefined, 'text'),
  };
  const sseMessage = (block) => {
    const message = { id: null, data: [] };
    for (const line of block.split(/\\r?\\n/)) {
      if (line === '' || line.startsWith(':')) continue;
      const colon = line.indexOf(':');
      const field = colon < 0 ? line : line.slice(0, colon);
      const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
      if (field === 'id') message.id = value;
      else if (field === 'data') message.data.push(value);
    }
    return message.data.length === 0 ? null : { id: message.id, data: message.data.join('\\n') };
  };
  const followStream = async (path, signal, onMessage) => {
    const res = await fetch(path, { headers: authHeaders({ Accept: 'text/event-stream' }), signal });
    // 204: the run settled or paused with nothing after the last event seen — a stream that ended.
    if (res.status === 204) return;
    if (!res.ok || !res.body) throw await failure(res);
    const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = '';
    for (;;) {
      const { value, done } = await reader.read();
      if (done) return;
      buffer += value;
      let end = buffer.search(/\\r?\\n\\r?\\n/);
      while (end >= 0) {
        const message = sseMessage(buffer.slice(0, end));
        buffer = buffer.slice(end).replace(/^\\r?\\n\\r?\\n/, '');
        if (message) onMessage(message);
        end = buffer.search(/\\r?\\n\\r?\\n/);
      }
    }
  };
  // A 401 is said once, by the token card that asks for the token: the other outputs stay quiet.
  const showError = (output, given) => {
    const error = given && given.status === 401 ? null : given;
    output.textContent = error ? (error.code ? error.code + ': ' : '') + error.message : '';
    output.hidden = !error;
  };
  const askToken = (why) => {
    const card = $('token-card');
    card.hidden = false;
    showError($('token-error'), why ? { message: why } : null);
    $('token-input').focus();
  };
  const bindToken = (onToken) => {
    $('token-form').addEventListener('submit', (event) => {
      event.preventDefault();
      studio.token = $('token-input').value.trim();
      sessionStorage.setItem(TOKEN_KEY, studio.token);
      $('token-input').value = '';
      $('token-card').hidden = true;
      onToken();
    });
  };
`;
