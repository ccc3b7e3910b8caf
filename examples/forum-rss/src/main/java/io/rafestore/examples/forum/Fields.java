package io.rafestore.examples.forum;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The rules for every user input, each failure a {@link BadRequest} naming the field and the rule.
 * Lengths count Unicode code points, so a limit means the same for every script.
 */
final class Fields {
  static final int MAX_TOPIC_ID = 64;
  static final int MAX_TITLE = 100;
  static final int MAX_AUTHOR = 40;
  static final int MAX_BODY = 4000;

  /** Lowercase ASCII letters, digits and inner hyphens: safe in a URL, a key and a page. */
  private static final Pattern TOPIC_ID = Pattern.compile("[a-z0-9](?:[a-z0-9-]*[a-z0-9])?");

  private Fields() {}

  /** Checks a topic id taken from a URL path. */
  static String topicId(String id) throws BadRequest {
    if (id.isEmpty() || id.length() > MAX_TOPIC_ID || !TOPIC_ID.matcher(id).matches()) {
      throw new BadRequest(
          "topic id must be 1 to "
              + MAX_TOPIC_ID
              + " characters of a-z, 0-9 and inner '-', was '"
              + abbreviate(id)
              + "'");
    }
    return id;
  }

  /** A topic title: one line of 1 to {@value #MAX_TITLE} characters, trimmed. */
  static String title(Optional<String> value) throws BadRequest {
    return line("title", value, MAX_TITLE);
  }

  /** An author name: one line of 1 to {@value #MAX_AUTHOR} characters, trimmed. */
  static String author(Optional<String> value) throws BadRequest {
    return line("author", value, MAX_AUTHOR);
  }

  /**
   * A post body: 1 to {@value #MAX_BODY} characters, trimmed, line breaks normalised to {@code \n};
   * tabs and line breaks are the only control characters allowed.
   */
  static String body(Optional<String> value) throws BadRequest {
    String text =
        value
            .orElseThrow(() -> new BadRequest("field 'body' is missing"))
            .replace("\r\n", "\n")
            .replace('\r', '\n')
            .strip();
    checkLength("body", text, MAX_BODY);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c != '\n' && c != '\t' && isControl(c)) {
        throw new BadRequest(
            "field 'body' contains control character U+"
                + String.format("%04X", (int) c)
                + " (only line breaks and tabs are allowed)");
      }
    }
    return text;
  }

  private static String line(String field, Optional<String> value, int max) throws BadRequest {
    String text =
        value.orElseThrow(() -> new BadRequest("field '" + field + "' is missing")).strip();
    checkLength(field, text, max);
    for (int i = 0; i < text.length(); i++) {
      if (isControl(text.charAt(i))) {
        throw new BadRequest(
            "field '"
                + field
                + "' must be one line without control characters (found U+"
                + String.format("%04X", (int) text.charAt(i))
                + ")");
      }
    }
    return text;
  }

  private static void checkLength(String field, String text, int max) throws BadRequest {
    int n = text.codePointCount(0, text.length());
    if (n == 0) {
      throw new BadRequest("field '" + field + "' is empty; it needs 1 to " + max + " characters");
    }
    if (n > max) {
      throw new BadRequest(
          "field '" + field + "' has " + n + " characters; at most " + max + " are allowed");
    }
  }

  private static boolean isControl(char c) {
    return Character.isISOControl(c) || c == '\u2028' || c == '\u2029';
  }

  private static String abbreviate(String s) {
    return s.length() <= MAX_TOPIC_ID ? s : s.substring(0, MAX_TOPIC_ID) + "...";
  }
}
