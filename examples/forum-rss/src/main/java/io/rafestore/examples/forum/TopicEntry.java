package io.rafestore.examples.forum;

import java.nio.charset.StandardCharsets;
import java.util.Objects;
import java.util.Optional;

/**
 * One topic creation, stored as a version of the forum's index key.
 *
 * <p><b>Format</b> (version 1), UTF-8 text: {@code rafestore-forum-topic/1 LF id LF title}.
 *
 * @param id the topic id (its key is {@code forum/topics/<id>})
 * @param title the title shown in the topic list
 */
record TopicEntry(String id, String title) {
  static final String MAGIC = "rafestore-forum-topic/1";

  TopicEntry {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(title, "title");
  }

  byte[] encode() {
    return (MAGIC + "\n" + id + "\n" + title).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * Parses stored bytes.
   *
   * @throws IllegalArgumentException saying why the value is not a topic entry
   */
  static TopicEntry decode(byte[] value) {
    String[] lines = Stored.utf8(value, "topic entry").split("\n", -1);
    if (lines.length != 3 || !lines[0].equals(MAGIC)) {
      throw new IllegalArgumentException("not a forum topic entry ('" + MAGIC + "' + 2 lines)");
    }
    try {
      return new TopicEntry(Fields.topicId(lines[1]), Fields.title(Optional.of(lines[2])));
    } catch (BadRequest e) {
      throw new IllegalArgumentException("topic entry breaks a rule: " + e.getMessage(), e);
    }
  }
}
