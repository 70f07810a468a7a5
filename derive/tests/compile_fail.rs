//! What a template cannot express is a compile error at the field, variant
//! or attribute it comes from. Each case in `ui/` is compiled against sdsi
//! and its diagnostics compared with the `.stderr` beside it (re-record
//! with `TRYBUILD=overwrite` after a change of wording or of toolchain).

#[test]
fn what_a_template_cannot_express_does_not_compile() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("tests/ui/*.rs");
}
