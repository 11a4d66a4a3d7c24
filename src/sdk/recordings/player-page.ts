/**
 * The public page of a shared recording: rrweb-player, fed with the recording's events from
 * `/shared/<token>/snapshots`. Everything it needs is served by Hoglet itself (no CDN), so a
 * self-hosted install works offline.
 */

export interface SharedRecordingInfo {
  id: string;
  recording_duration: number;
  start_time: string | null;
  end_time: string | null;
}

/** JSON inside a <script> block: `<` escaped so no value can close the tag. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page; `nonce` is the one its Content-Security-Policy names for the inline script. */
export function playerPage(token: string, info: SharedRecordingInfo, nonce: string): string {
  const title = `Recording ${info.id}`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<link rel="stylesheet" href="/static/rrweb-player/style.css">
<style>
  body { margin: 0; font-family: system-ui, sans-serif; background: #f3f4f0; color: #23251d; }
  header { padding: 12px 20px; font-size: 14px; }
  #player { display: flex; justify-content: center; padding: 0 20px 20px; }
  #status { padding: 0 20px; font-size: 13px; color: #6b6f61; }
</style>
</head>
<body data-state="loading">
<header><strong>${escapeHtml(title)}</strong> <span id="meta"></span></header>
<div id="status">Loading…</div>
<div id="player"></div>
<script src="/static/rrweb-player/rrweb-player.js"></script>
<script nonce="${nonce}">
(async () => {
  const info = ${scriptJson(info)};
  const token = ${scriptJson(token)};
  const status = document.getElementById('status');
  document.getElementById('meta').textContent =
    (info.start_time ? new Date(info.start_time).toLocaleString() + ' · ' : '') + info.recording_duration + ' s';
  try {
    const response = await fetch('/shared/' + encodeURIComponent(token) + '/snapshots');
    if (!response.ok) throw new Error('snapshots answered ' + response.status);
    const text = await response.text();
    const events = text.split('\\n').filter(Boolean).map((line) => JSON.parse(line));
    // Chunks from several windows interleave; the player needs one time-ordered stream.
    events.sort((a, b) => a.timestamp - b.timestamp);
    if (!events.some((e) => e.type === 2)) throw new Error('the recording has no full snapshot to start from');
    const Player = window.rrwebPlayer.default || window.rrwebPlayer;
    const width = Math.min(1024, document.documentElement.clientWidth - 40);
    window.hogletPlayer = new Player({
      target: document.getElementById('player'),
      props: { events, width, height: Math.round(width * 0.6), autoPlay: false, showController: true },
    });
    status.textContent = events.length + ' events';
    document.body.dataset.state = 'ready';
  } catch (error) {
    status.textContent = 'This recording cannot be played: ' + error.message;
    document.body.dataset.state = 'error';
  }
})();
</script>
</body>
</html>
`;
}
