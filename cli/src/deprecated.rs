//! The forms kept for one release after the CLI was made consistent: the
//! old subcommand names (hidden clap aliases) and the template as a
//! positional argument. Each still works, with a warning on stderr.

use std::ffi::OsString;

/// Old subcommand names and the names that replaced them.
pub const RENAMED: [(&str, &str); 2] = [("envelope", "check-envelope"), ("compat", "check-compat")];

/// The subcommand as typed: the first argument that is not a flag (the
/// only global flag, `--pretty`, takes no value). clap resolves an alias to
/// its command without saying which name was used, hence this look.
pub fn typed_subcommand(args: impl IntoIterator<Item = OsString>) -> Option<String> {
    args.into_iter()
        .skip(1)
        .find(|arg| !arg.to_string_lossy().starts_with('-'))
        .map(|arg| arg.to_string_lossy().into_owned())
}

/// The warning for an old subcommand name, if `typed` is one.
pub fn renamed(typed: &str) -> Option<String> {
    RENAMED
        .iter()
        .find(|(old, _)| *old == typed)
        .map(|(old, new)| {
            format!("`sdsi {old}` is now `sdsi {new}`; the old name goes in the next release")
        })
}

/// The warning for a template given as a positional argument to `command`.
pub fn positional(command: &str, instead: &str) -> String {
    format!(
        "`sdsi {command}` takes the template as {instead} now; the positional form goes in the next release"
    )
}

/// Prints a warning on stderr, where it cannot mix with the JSON on stdout.
pub fn warn(message: &str) {
    eprintln!("sdsi: warning: {message}");
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(list: &[&str]) -> Vec<OsString> {
        list.iter().map(OsString::from).collect()
    }

    #[test]
    fn the_subcommand_is_the_first_non_flag() {
        assert_eq!(
            typed_subcommand(args(&["sdsi", "--pretty", "compat", "a", "b"])).as_deref(),
            Some("compat")
        );
        assert_eq!(typed_subcommand(args(&["sdsi", "--help"])), None);
    }

    #[test]
    fn only_old_names_warn() {
        assert!(renamed("envelope").is_some_and(|w| w.contains("check-envelope")));
        assert!(renamed("compat").is_some_and(|w| w.contains("check-compat")));
        assert_eq!(renamed("check-envelope"), None);
        assert_eq!(renamed("validate"), None);
    }
}
