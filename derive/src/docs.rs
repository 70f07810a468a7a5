//! Doc comments as description text.

use syn::{Attribute, Expr, ExprLit, Lit, Meta};

/// The text of the doc comments among `attrs`, `None` when there is none
/// (or only blank lines).
///
/// Each line is trimmed; lines of one paragraph are joined with a space and
/// paragraphs with a blank line, so the description reads as the rendered
/// comment does rather than as it was wrapped in the source.
pub(crate) fn doc_text(attrs: &[Attribute]) -> syn::Result<Option<String>> {
    let mut paragraphs: Vec<String> = Vec::new();
    let mut current = String::new();
    for attr in attrs {
        if !attr.path().is_ident("doc") {
            continue;
        }
        let text = match &attr.meta {
            Meta::NameValue(pair) => match &pair.value {
                Expr::Lit(ExprLit {
                    lit: Lit::Str(text),
                    ..
                }) => text.value(),
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "this doc attribute is not text the derive can read: write the description as a `///` comment",
                    ));
                }
            },
            // `#[doc(hidden)]` and the like carry no text.
            _ => continue,
        };
        // Not `lines()`: a blank `///` line is an empty string, which has no
        // line but ends a paragraph.
        for line in text.split('\n') {
            let line = line.trim();
            if line.is_empty() {
                if !current.is_empty() {
                    paragraphs.push(std::mem::take(&mut current));
                }
            } else {
                if !current.is_empty() {
                    current.push(' ');
                }
                current.push_str(line);
            }
        }
    }
    if !current.is_empty() {
        paragraphs.push(current);
    }
    Ok((!paragraphs.is_empty()).then(|| paragraphs.join("\n\n")))
}
