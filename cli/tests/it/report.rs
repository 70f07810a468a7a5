//! `sdsi evolve --report` and `sdsi report --state`: a stream with bursts,
//! card numbers and hostile markup gives one self-contained page that names
//! every proposed key, holds the SVG charts, loads nothing and quotes no raw
//! card number; headless Chromium renders it and runs no script of the
//! stream's (scripts/test.sh installs Debian's `chromium` when missing).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::common::{card_number, fixture, fresh_dir, json_lines, log_line};
use serde_json::Value;

/// Markup that would run if it reached the page unescaped: each marks the
/// body, which the rendered DOM would then show.
const HOSTILE: [&str; 4] = [
    "<script>document.body.dataset.pwned='script'</script> window seat please",
    "\"><img src=x onerror=\"document.body.dataset.pwned='img'\"> a window seat",
    "</td></tr></table><svg onload=\"document.body.dataset.pwned='svg'\"> seat by the window",
    "<iframe src=\"javascript:parent.document.body.dataset.pwned='frame'\"></iframe> window seat",
];

/// Three needs phrased many ways by a dozen clients, starting at different
/// hours and at different rates; the seat need also in hostile markup, each
/// piece twice as often as each plain wording (so it is quoted); card payments (every request its own number);
/// one-off questions.
fn log(path: &Path) -> Vec<String> {
    let seat: Vec<&str> = [
        "window seat please",
        "a seat by the window",
        "I'd like to sit at the window",
    ]
    .into_iter()
    .chain(HOSTILE)
    .chain(HOSTILE)
    .collect();
    let wheelchair = [
        "I need a wheelchair at the gate",
        "wheelchair assistance please",
        "my mother needs wheelchair help at the airport",
        "please arrange a wheelchair",
    ];
    let bags = [
        "I will bring 2 extra bags",
        "add 1 extra bag",
        "two more checked bags please",
        "extra baggage: 3 bags",
    ];
    let one_offs = [
        "can I bring my cat in the cabin",
        "is there wifi on board",
        "what is the lounge opening time",
        "do you sell gift cards",
        "how early should I be at the airport",
        "can I change the name on the ticket",
    ];
    let pick = |texts: &[&str], i: usize| texts[(i / 10) % texts.len()].to_owned();
    let mut lines = Vec::new();
    let mut cards = Vec::new();
    // 600 messages, one every three minutes: 30 hours.
    for i in 0..600usize {
        // Clients spread evenly over needs and phrasings.
        let client = format!("agent-{:02}", (i.wrapping_mul(2_654_435_761) >> 7) % 12);
        let text = match i % 10 {
            0..=2 => pick(&seat, i),
            3 | 4 if i >= 120 => pick(&wheelchair, i),
            5..=7 if i >= 300 => pick(&bags, i),
            8 | 9 if i % 3 != 0 => {
                let card = card_number(i);
                cards.push(card.clone());
                format!("please charge my card {card} for the fare")
            }
            _ => pick(&one_offs, i),
        };
        lines.push(log_line(3 * i as i64, &client, &text));
    }
    std::fs::write(path, lines.join("\n") + "\n").unwrap();
    cards
}

/// The key names of every proposed or held patch.
fn proposed_keys(lines: &[Value]) -> Vec<String> {
    lines
        .iter()
        .filter(|l| l["event"] == "proposed" || l["event"] == "held")
        .flat_map(|l| {
            l["patch"]["new_keys"]
                .as_array()
                .cloned()
                .unwrap_or_default()
        })
        .map(|k| k["key_name"].as_str().unwrap().to_owned())
        .collect()
}

/// What the page must and must not hold, read from its text or its DOM.
fn check_page(page: &str, keys: &[String], cards: &[String], what: &str) {
    for key in keys {
        assert!(page.contains(key.as_str()), "{what} does not name {key}");
    }
    assert!(page.matches("<svg").count() >= 2, "{what} lacks the charts");
    let squeezed = page.replace([' ', '-'], "");
    for card in cards {
        assert!(
            !squeezed.contains(card.as_str()),
            "{what} shows card {card}"
        );
    }
    let lower = page.to_lowercase();
    for tag in ["<script", "<img", "<iframe", "<link", "<object", "<embed"] {
        assert!(!lower.contains(tag), "{what} holds a {tag} element");
    }
    for resource in ["http://", "https://", "url(", "@import"] {
        assert!(!lower.contains(resource), "{what} holds {resource}");
    }
    // Event handlers: an attribute `on…=` inside a tag (text shows a `<`
    // only escaped, so no tag starts inside client text).
    for tag in lower.split('<').skip(1) {
        let tag = tag.split('>').next().unwrap_or_default();
        let handler = tag
            .split_whitespace()
            .skip(1)
            .any(|attribute| attribute.starts_with("on") && attribute.contains('='));
        assert!(!handler, "{what} holds an event handler: <{tag}>");
    }
}

#[test]
fn a_replay_gives_a_self_contained_page_that_names_every_key() {
    let d = fresh_dir("report-page");
    let events = d.join("events.jsonl");
    let cards = log(&events);
    let (page_path, state) = (d.join("report.html"), d.join("state.db"));
    let (code, lines) = json_lines(&[
        "evolve",
        "--schema",
        &fixture("flight_template.json"),
        events.to_str().unwrap(),
        "--state",
        state.to_str().unwrap(),
        "--report",
        page_path.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{lines:#?}");
    let summary = lines.last().unwrap();
    assert_eq!(summary["report"], page_path.to_str().unwrap());
    let keys = proposed_keys(&lines);
    assert!(keys.len() >= 2, "the bursts propose keys: {lines:#?}");
    let page = std::fs::read_to_string(&page_path).unwrap();
    check_page(&page, &keys, &cards, "the page");
    assert!(
        page.contains("Content-Security-Policy") && page.contains("default-src 'none'"),
        "the page forbids scripts and loads"
    );
    // The hostile markup is quoted (the seat need's exemplars), as text.
    assert!(
        page.contains("dataset.pwned") && page.contains("&lt;svg onload="),
        "the hostile exemplars should reach the page, escaped"
    );

    // The same page again from the saved state.
    let again = d.join("again.html");
    let (code, printed) = json_lines(&[
        "report",
        "--state",
        state.to_str().unwrap(),
        "--output",
        again.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{printed:#?}");
    assert_eq!(
        printed[0]["at"], "2026-05-02T13:57:00Z",
        "RFC 3339, the last line's time"
    );
    assert_eq!(std::fs::read_to_string(&again).unwrap(), page);

    if let Some(chromium) = chromium() {
        let dom = headless(&chromium, &d, &["--dump-dom"], &page_path);
        check_page(&dom, &keys, &cards, "the rendered DOM");
        assert!(!dom.contains("data-pwned"), "a script of the stream ran");
        let shot = std::env::var_os("SDSI_REPORT_SCREENSHOT")
            .map_or_else(|| d.join("report.png"), PathBuf::from);
        let arg = format!("--screenshot={}", shot.display());
        headless(
            &chromium,
            &d,
            &[&arg, "--window-size=1200,1900"],
            &page_path,
        );
        let png = std::fs::read(&shot).unwrap();
        assert!(
            png.starts_with(b"\x89PNG") && png.len() > 20_000,
            "a real screenshot"
        );
    }
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn report_refuses_what_it_cannot_use() {
    let d = fresh_dir("report-refusals");
    let out = d.join("r.html");
    let (code, printed) = json_lines(&[
        "report",
        "--state",
        d.join("missing.db").to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        printed[0]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no such file")
    );
    // A state file with nothing saved in it.
    let empty = d.join("empty.db");
    drop(sdsi_sqlite_open(&empty));
    let (code, printed) = json_lines(&[
        "report",
        "--state",
        empty.to_str().unwrap(),
        "--output",
        out.to_str().unwrap(),
    ]);
    assert_eq!(code, 2);
    assert!(
        printed[0]["errors"][0]["message"]
            .as_str()
            .unwrap()
            .contains("no saved state")
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&d).unwrap();
}

/// Creates an empty state file the way `evolve --state` would.
fn sdsi_sqlite_open(path: &Path) -> sdsi_sqlite::SqliteState {
    sdsi_sqlite::SqliteState::open(path).unwrap()
}

/// The browser (`SDSI_CHROMIUM`, else `chromium` on the PATH), or `None`
/// after saying the browser checks are skipped; with
/// `SDSI_REQUIRE_CHROMIUM` set (as scripts/test.sh sets it) a missing
/// browser fails the test instead.
fn chromium() -> Option<PathBuf> {
    let found = std::env::var_os("SDSI_CHROMIUM")
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("PATH").and_then(|paths| {
                std::env::split_paths(&paths)
                    .map(|p| p.join("chromium"))
                    .find(|p| p.is_file())
            })
        });
    if found.is_none() {
        assert!(
            std::env::var_os("SDSI_REQUIRE_CHROMIUM").is_none(),
            "SDSI_REQUIRE_CHROMIUM is set but no chromium was found"
        );
        eprintln!("skipped: no chromium (scripts/test.sh installs Debian's package)");
    }
    found
}

/// Runs headless Chromium on `page` with `args`, within two minutes; its
/// standard output.
fn headless(chromium: &Path, d: &Path, args: &[&str], page: &Path) -> String {
    let profile = d.join("chromium-profile");
    let mut child = Command::new(chromium)
        .args([
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--no-first-run",
            "--hide-scrollbars",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(args)
        .arg(format!("file://{}", page.display()))
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start chromium");
    let mut stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut text = String::new();
        std::io::Read::read_to_string(&mut stdout, &mut text).unwrap();
        text
    });
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium failed: {status}");
            break;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("chromium took over two minutes");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    reader.join().unwrap()
}
