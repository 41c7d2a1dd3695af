//! What tests read from a command that ran (its standard error and output as text, its one
//! error line), and a one-shot HTTP server for what `data fetch` downloads: shared by the
//! CLI tests instead of each file retyping them.

use std::io::{Read, Write};
use std::process::Output;

/// The command's standard error as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// The command's standard output as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// The one error line of a failed command (after any progress lines); panics unless there is
/// exactly one and it is the last line.
pub fn error_line(output: &Output) -> String {
    let text = stderr(output);
    let errors: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("mpfb2g4mf: error:"))
        .collect();
    assert_eq!(errors.len(), 1, "one error line: {text}");
    assert_eq!(
        text.lines().last(),
        Some(errors[0]),
        "the error is the last line: {text}"
    );
    errors[0].to_owned()
}

/// Serves `body` (a zip archive) once over HTTP on a free local port; returns its URL, whose
/// last segment is `name`.
pub fn serve_once(body: Vec<u8>, name: &str) -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap_or_else(|e| panic!("{e}"));
    let address = listener.local_addr().unwrap_or_else(|e| panic!("{e}"));
    std::thread::spawn(move || {
        let Ok((mut stream, _)) = listener.accept() else {
            return;
        };
        let mut request = Vec::new();
        let mut byte = [0u8; 1];
        while !request.ends_with(b"\r\n\r\n") && stream.read(&mut byte).unwrap_or(0) == 1 {
            request.push(byte[0]);
        }
        let head = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/zip\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
            body.len()
        );
        let _ = stream.write_all(head.as_bytes());
        let _ = stream.write_all(&body);
    });
    format!("http://{address}/{name}")
}
