//! Durations on the command line: `90s`, `30m`, `24h`, `7d`, or plain seconds.

use time::Duration;

/// Parses `text` as a positive duration.
pub fn parse(text: &str) -> Result<Duration, String> {
    let text = text.trim();
    let (number, unit) = match text.find(|c: char| c.is_ascii_alphabetic()) {
        Some(i) => text.split_at(i),
        None => (text, "s"),
    };
    let value: f64 = number
        .trim()
        .parse()
        .map_err(|_| format!("{text:?} is not a duration like 90s, 30m, 24h or 7d"))?;
    let seconds = match unit {
        "s" => value,
        "m" => value * 60.0,
        "h" => value * 3600.0,
        "d" => value * 86_400.0,
        other => return Err(format!("unknown unit {other:?}: use s, m, h or d")),
    };
    if !(seconds.is_finite() && seconds > 0.0 && seconds < 1e15) {
        return Err(format!("{text:?} must be a positive duration"));
    }
    Ok(Duration::seconds_f64(seconds))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn units() {
        assert_eq!(parse("24h"), Ok(Duration::hours(24)));
        assert_eq!(parse("7d"), Ok(Duration::days(7)));
        assert_eq!(parse("90"), Ok(Duration::seconds(90)));
        assert!(parse("0s").is_err());
        assert!(parse("-1h").is_err());
        assert!(parse("1w").is_err());
        assert!(parse("soon").is_err());
    }
}
