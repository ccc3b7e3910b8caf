package io.rafestore.examples.forum;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;

/**
 * Escaping for every place user text lands in a page: element text, attribute values (always
 * quoted) and URL path segments. Stateless and thread-safe.
 */
final class Html {
  private Html() {}

  /**
   * Escapes {@code & < > " '} so that {@code text} is shown as text in element content and in a
   * quoted attribute value (single or double quotes), never parsed as markup.
   */
  static String escape(String text) {
    StringBuilder sb = new StringBuilder(text.length() + 16);
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      switch (c) {
        case '&' -> sb.append("&amp;");
        case '<' -> sb.append("&lt;");
        case '>' -> sb.append("&gt;");
        case '"' -> sb.append("&quot;");
        case '\'' -> sb.append("&#39;");
        default -> sb.append(c);
      }
    }
    return sb.toString();
  }

  /**
   * One URL path segment, percent-encoded (so it cannot add {@code /}, {@code ?} or {@code #}) and
   * then HTML-escaped for an attribute. Topic ids are validated to a safe charset before they get
   * here; this is the second line of defence.
   */
  static String pathSegment(String segment) {
    return escape(URLEncoder.encode(segment, StandardCharsets.UTF_8).replace("+", "%20"));
  }
}
