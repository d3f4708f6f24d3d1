//! Where a capper writes its notices: to the writers its caller gives,
//! never to a stream of the process.

use capout_core::{CapSpec, Capper, NoticeTarget, Options};

fn options(target: NoticeTarget) -> Options {
    let mut options = Options::new(CapSpec::TailLines(1));
    options.notice = target;
    options
}

#[test]
fn notices_for_stderr_go_to_the_writer_the_caller_gives() {
    let mut capper = Capper::new(options(NoticeTarget::Stderr)).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    capper.push_with(b"a\nb\n", &mut out, &mut err).unwrap();
    let summary = capper.finish_with(&mut out, &mut err).unwrap();
    assert_eq!(out, b"b\n");
    assert_eq!(err, b"... (truncated, showing last 1 lines)\n");
    assert_eq!(summary.notice.unwrap().to_string(), "... (truncated, showing last 1 lines)");
}

#[test]
fn push_and_finish_leave_notices_for_stderr_in_the_summary() {
    let mut capper = Capper::new(options(NoticeTarget::Stderr)).unwrap();
    let mut out = Vec::new();
    capper.push(b"a\nb\n", &mut out).unwrap();
    let summary = capper.finish(&mut out).unwrap();
    assert_eq!(out, b"b\n");
    assert_eq!(summary.notice.unwrap().to_string(), "... (truncated, showing last 1 lines)");
}

#[test]
fn notices_for_stdout_follow_the_output() {
    let mut capper = Capper::new(options(NoticeTarget::Stdout)).unwrap();
    let mut out = Vec::new();
    capper.push(b"a\nb", &mut out).unwrap();
    capper.finish(&mut out).unwrap();
    assert_eq!(out, b"b\n... (truncated, showing last 1 lines)\n");
}
