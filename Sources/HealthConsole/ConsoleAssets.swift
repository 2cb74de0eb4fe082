/// The console's stylesheet and its one small script, served from the binary (no CDN, nothing from the network).
enum ConsoleAssets {
    /// The tab icon: a heart.
    static let icon = """
        <svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><path d="M16 29 4 17a7 7 0 0 1 12-9 7 7 0 0 1 12 9z" fill="#b91c1c"/></svg>
        """

    static let css = """
        :root { color-scheme: light; --fg: #111827; --muted: #4b5563; --line: #d1d5db; --accent: #1d4ed8; --bg: #ffffff; --soft: #f3f4f6; }
        * { box-sizing: border-box; }
        body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
        a { color: var(--accent); }
        a:focus-visible, button:focus-visible, input:focus-visible, select:focus-visible, summary:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
        .skip { position: absolute; left: -999px; } .skip:focus { left: 8px; top: 8px; background: #fff; padding: 4px 8px; z-index: 2; }
        header { background: #0f172a; color: #fff; padding: 8px 16px; display: flex; flex-wrap: wrap; align-items: center; gap: 8px 24px; }
        header .brand { font-weight: 700; margin: 0; }
        header nav { display: flex; flex-wrap: wrap; align-items: center; gap: 4px 12px; }
        header nav ul { display: flex; flex-wrap: wrap; gap: 4px 12px; list-style: none; margin: 0; padding: 0; }
        header nav a { color: #e5e7eb; text-decoration: none; padding: 4px 2px; }
        header nav a[aria-current="page"] { color: #fff; border-bottom: 3px solid #60a5fa; }
        main { max-width: 1040px; margin: 0 auto; padding: 16px; }
        h1 { font-size: 1.6rem; margin: 8px 0 16px; } h2 { font-size: 1.25rem; margin-top: 28px; }
        .scroll { overflow-x: auto; }
        table { border-collapse: collapse; width: 100%; font-size: 0.95rem; }
        th, td { text-align: left; padding: 6px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
        thead th { background: var(--soft); }
        code { font-size: 0.9em; background: var(--soft); padding: 1px 4px; border-radius: 3px; }
        .wrap { word-break: break-all; }
        pre { white-space: pre-wrap; word-break: break-all; background: var(--soft); padding: 8px; }
        button { font: inherit; padding: 6px 14px; border-radius: 6px; border: 1px solid #1e40af; background: #1d4ed8; color: #fff; cursor: pointer; }
        button.secondary { background: #fff; color: #1e3a8a; }
        button.danger { background: #b91c1c; border-color: #991b1b; }
        button.link { background: none; border: none; color: #e5e7eb; text-decoration: underline; padding: 4px 2px; }
        form.inline { display: inline; margin: 0 4px 0 0; }
        .facts { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 12px; margin: 0; }
        .facts div { background: var(--soft); padding: 10px 12px; border-radius: 8px; }
        .facts dt { font-weight: 600; } .facts dd { margin: 0; word-break: break-word; }
        .spans ul { display: flex; gap: 12px; list-style: none; padding: 0; }
        .spans a[aria-current] { font-weight: 700; }
        .chart { margin: 0; } .plot svg { width: 100%; height: auto; }
        .plot { overflow-x: auto; } .plot svg { min-width: 520px; }
        figcaption { color: var(--muted); font-size: 0.9rem; }
        .legend { display: flex; flex-wrap: wrap; gap: 4px 14px; list-style: none; padding: 0; margin: 4px 0; font-size: 0.9rem; }
        details { margin: 6px 0 12px; } details table { font-size: 0.85rem; }
        .pair { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 16px; align-items: start; }
        @media (max-width: 700px) { .pair { grid-template-columns: minmax(0, 1fr); } main { padding: 10px; } }
        .big { font-size: 1.8rem; font-weight: 700; margin: 0; }
        .note, .muted { color: var(--muted); font-size: 0.9rem; }
        ol.priority { padding-left: 0; list-style: none; }
        ol.priority li { display: flex; align-items: center; gap: 8px; padding: 6px 0; border-bottom: 1px solid var(--line); }
        ol.priority .source { flex: 1; } .rank { font-weight: 700; width: 1.5em; }
        ol.priority button { padding: 2px 10px; }
        .request { border: 1px solid var(--line); border-radius: 8px; padding: 8px 14px; margin: 10px 0; }
        .request h3 { margin: 4px 0; }
        .card { border: 1px solid var(--line); border-radius: 8px; padding: 12px; margin: 12px 0; }
        .qr svg { width: 220px; height: 220px; }
        .code { font-family: ui-monospace, monospace; font-size: 1.3rem; letter-spacing: 0.08em; }
        .filters { display: flex; flex-wrap: wrap; gap: 8px 16px; align-items: end; margin-bottom: 12px; }
        .filters label { display: flex; flex-direction: column; font-size: 0.9rem; }
        fieldset label.check { display: inline-block; margin: 0 1.2em 0.4em 0; white-space: nowrap; }
        fieldset label.wide { display: block; margin-top: 0.4em; }
        input, select { font: inherit; padding: 4px 6px; border: 1px solid #6b7280; border-radius: 4px; }
        .upload { display: flex; flex-direction: column; gap: 8px; max-width: 480px; }
        .progress { margin: 12px 0; } progress { width: 100%; max-width: 480px; height: 20px; }
        .error { border-left: 4px solid #b91c1c; padding: 4px 12px; background: #fef2f2; }
        """

    /// The import page's upload: the file goes up as the request body (XMLHttpRequest, for upload progress), then the
    /// import's progress is polled until it ends and the page shows the report.
    static let js = """
        "use strict";
        document.addEventListener("DOMContentLoaded", () => {
          const form = document.getElementById("import-form");
          if (!form) return;
          const bar = document.getElementById("import-bar");
          const percent = document.getElementById("import-percent");
          const phase = document.getElementById("import-phase");
          const message = document.getElementById("import-message");
          const box = document.getElementById("import-progress");
          const show = (value, label) => {
            bar.value = value; percent.textContent = value.toFixed(1) + " %";
            if (label) phase.textContent = label;
          };
          form.addEventListener("submit", (event) => {
            event.preventDefault();
            const file = document.getElementById("import-file").files[0];
            if (!file) return;
            if (file.size > Number(form.dataset.max)) { message.textContent = "This file is too large."; return; }
            box.hidden = false; message.textContent = ""; show(0, "Uploading");
            document.getElementById("import-start").disabled = true;
            const request = new XMLHttpRequest();
            request.open("POST", "/import/upload");
            request.setRequestHeader("X-CSRF-Token", form.dataset.csrf);
            request.setRequestHeader("Content-Type", "application/zip");
            request.upload.addEventListener("progress", (e) => { if (e.lengthComputable) show(100 * e.loaded / e.total, "Uploading"); });
            request.addEventListener("load", () => {
              let answer = {};
              try { answer = JSON.parse(request.responseText); } catch (e) { answer = {}; }
              if (request.status !== 202) {
                message.textContent = (answer.error && answer.error.message) || ("The upload was refused (" + request.status + ").");
                document.getElementById("import-start").disabled = false;
                return;
              }
              show(0, "Importing");
              poll(answer.job);
            });
            request.addEventListener("error", () => { message.textContent = "The upload failed."; });
            request.send(file);
          });
          const poll = (job) => {
            fetch("/import/status?job=" + encodeURIComponent(job), { credentials: "same-origin" })
              .then((r) => r.json())
              .then((status) => {
                if (status.error) { message.textContent = status.error.message; return; }
                show(status.percent, status.state === "running" ? "Importing" : "Imported");
                if (status.state === "running") { setTimeout(() => poll(job), 300); return; }
                if (status.state === "done") { show(100, "Imported"); }
                setTimeout(() => { window.location.assign("/import?job=" + encodeURIComponent(job)); }, 600);
              })
              .catch(() => { message.textContent = "Lost contact with the server."; });
          };
        });
        """
}
