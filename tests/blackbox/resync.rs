//! A frame whose `Content-Length` lies (shorter or longer than its body) costs that frame, not
//! the connection: the rest of its body is glued to the next frame's header when a client writes
//! frames back to back, and the guard must find that header instead of losing every later frame.

use crate::raw::{RawServer, frame_bytes, lenient};

fn count(id: i64, text: &str) -> Vec<u8> {
    frame_bytes(
        format!(
            r#"{{"jsonrpc":"2.0","id":{id},"method":"roo/tokens/count","params":{{"text":"{text}"}}}}"#
        )
        .as_bytes(),
    )
}

/// `body` framed with a length `delta` bytes off.
fn lying(body: &str, delta: isize) -> Vec<u8> {
    let length = body.len() as isize + delta;
    let mut bytes = format!("Content-Length: {length}\r\n\r\n").into_bytes();
    bytes.extend_from_slice(body.as_bytes());
    bytes
}

#[test]
fn a_lying_content_length_costs_one_frame_not_the_connection() {
    let mut server = RawServer::start();
    let long = "x".repeat(20_000);
    for ((text, delta), first) in [("hello", -5), (long.as_str(), -19_990), ("hello", 30)]
        .into_iter()
        .zip([100i64, 110, 120])
    {
        let body = format!(
            r#"{{"jsonrpc":"2.0","id":{first},"method":"roo/tokens/count","params":{{"text":"{text}"}}}}"#
        );
        let mut bytes = lying(&body, delta);
        // When the length is too long, the frame eats the start of the next one, which no
        // guard can give back: that one is a sacrifice, the ones after it must be answered.
        let sacrificed = if delta > 0 {
            bytes.extend(count(first + 1, "eaten"));
            1
        } else {
            0
        };
        for id in first + 1 + sacrificed..first + 4 {
            bytes.extend(count(id, "hi"));
        }
        server.send_raw(&bytes);
        // Answers may come in any order; a lost one makes `next_body` fail at its deadline.
        let expected: Vec<i64> = (first + 1 + sacrificed..first + 4).collect();
        let mut answered = Vec::new();
        while !expected.iter().all(|id| answered.contains(id)) {
            let reply = lenient(&server.next_body());
            answered.push(reply["id"].as_i64().unwrap_or(-1));
        }
    }
    server.assert_alive();
}

/// Red team (issue 25): a `Content-Length` over 1 GiB made the guard discard the next 2 GB of
/// input. A length over the largest frame (256 MiB) is answered with an error at once and the
/// guard reads on at the next header: the requests right behind it are served.
#[test]
fn an_absurd_content_length_is_refused_and_the_frames_behind_it_are_served() {
    let mut server = RawServer::start();
    for (length, first) in [(2_000_000_000u64, 200i64), (268_435_457, 210)] {
        let mut bytes = format!("Content-Length: {length}\r\n\r\n").into_bytes();
        bytes.extend_from_slice(br#"{"jsonrpc":"2.0","id":1,"method":"roo/tokens/count","#);
        for id in first..first + 3 {
            bytes.extend(count(id, "hi"));
        }
        server.send_raw(&bytes);
        let refused = lenient(&server.next_body());
        assert_eq!(refused["error"]["code"], -32600, "{refused}");
        assert!(
            refused["error"]["message"]
                .as_str()
                .unwrap()
                .contains("largest frame"),
            "{refused}"
        );
        // The cut body glued to the first frame's header costs nothing but itself.
        let mut answered = Vec::new();
        while !(first..first + 3).all(|id| answered.contains(&id)) {
            let reply = lenient(&server.next_body());
            answered.push(reply["id"].as_i64().unwrap_or(-1));
        }
    }
    server.assert_alive();
}
