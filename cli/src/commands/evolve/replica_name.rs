//! A replica's name when `--replica` is not given: one of its own per
//! process, so that two unnamed replicas are two rows of the replica table
//! (one name shared would let the first to finish stop the watermark
//! waiting for the other).

use std::hash::BuildHasher;

/// The longest host name kept in a generated name.
const HOST_CHARS: usize = 63;

/// `HOST-PID-SUFFIX`: the machine's host name (when it can be read), the
/// process id, and eight random hex digits (process ids are reused, and
/// containers on several machines may share a host name). A replica
/// restarted without `--replica` is a new replica: the old row stops
/// holding the watermark once it is no longer heard of, and is deleted.
pub fn generated() -> String {
    let host = host_name().unwrap_or_else(|| "replica".to_owned());
    format!("{host}-{}-{:08x}", std::process::id(), random() >> 32)
}

/// The host name, from the kernel or the environment, kept to letters,
/// digits, dots and hyphens.
fn host_name() -> Option<String> {
    let read = ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|path| std::fs::read_to_string(path).ok());
    let raw = read
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())?;
    let host: String = raw
        .trim()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '-')
        .take(HOST_CHARS)
        .collect();
    (!host.is_empty()).then_some(host)
}

/// 64 random bits: the standard library's hasher keys are seeded by the
/// operating system, and each `RandomState` has keys of its own.
fn random() -> u64 {
    std::collections::hash_map::RandomState::new().hash_one(std::process::id())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_say_which_process() {
        let (a, b) = (generated(), generated());
        assert_ne!(a, b);
        let pid = format!("-{}-", std::process::id());
        assert!(a.contains(&pid), "{a}");
        assert!(
            a.chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '.' || c == '-'),
            "{a}"
        );
    }
}
