package io.rafestore.examples.forum;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * A forum post as stored: the value of one version of a topic's key.
 *
 * <p><b>Format</b> (version 1), UTF-8 text:
 *
 * <pre>
 * rafestore-forum-post/1 LF
 * author LF          (one line, 1 to 40 characters)
 * body               (the rest, 1 to 4000 characters, LF line breaks)
 * </pre>
 *
 * The time of a post is not in the value: it is the version's {@code createdAt}, which the writer
 * signs with the metadata. Values are read back from clouds through RafeStore, which verifies them
 * against signed metadata, but a trusted writer other than this app could still store anything
 * under a topic key; {@link #decode} therefore checks every rule again.
 *
 * @param author who wrote it
 * @param body the text
 */
record Post(String author, String body) {
  static final String MAGIC = "rafestore-forum-post/1";

  Post {
    Objects.requireNonNull(author, "author");
    Objects.requireNonNull(body, "body");
  }

  /** A post from form fields, validated. */
  static Post of(Optional<String> author, Optional<String> body) throws BadRequest {
    return new Post(Fields.author(author), Fields.body(body));
  }

  /** The stored bytes. */
  byte[] encode() {
    return (MAGIC + "\n" + author + "\n" + body).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses stored bytes.
   *
   * @throws IllegalArgumentException saying why the value is not a forum post
   */
  static Post decode(byte[] value) {
    String text = Stored.utf8(value, "post");
    int first = text.indexOf('\n');
    if (first < 0 || !text.substring(0, first).equals(MAGIC)) {
      throw new IllegalArgumentException("not a forum post (no '" + MAGIC + "' header)");
    }
    int second = text.indexOf('\n', first + 1);
    if (second < 0) {
      throw new IllegalArgumentException("forum post without a body");
    }
    try {
      return new Post(
          Fields.author(Optional.of(text.substring(first + 1, second))),
          Fields.body(Optional.of(text.substring(second + 1))));
    } catch (BadRequest e) {
      throw new IllegalArgumentException("forum post breaks a rule: " + e.getMessage(), e);
    }
  }
}
