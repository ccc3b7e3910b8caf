package io.rafestore.config;

import java.io.IOException;
import java.util.Optional;

/**
 * A configuration file, or a key file it names, is wrong. The message has the form {@code
 * FILE:LINE: FIELD: what is wrong and what is accepted}, like a compiler's, so that an editor can
 * jump to it; {@link #source()}, {@link #line()} and {@link #field()} give the parts. A message
 * never repeats a value that might be a secret.
 */
public final class ConfigException extends IOException {
  private static final long serialVersionUID = 1L;

  private final String source;
  private final int line;
  private final String field;
  private final String problem;

  /**
   * @param source the file name (as given by the caller), never null
   * @param line the 1-based line, or 0 when the problem is not on one line (a missing field)
   * @param field the configuration key concerned, such as {@code cloud.minio.role}, or null
   * @param problem what is wrong, without the location
   */
  public ConfigException(String source, int line, String field, String problem) {
    this(source, line, field, problem, null);
  }

  /** As {@link #ConfigException(String, int, String, String)}, with a cause. */
  public ConfigException(String source, int line, String field, String problem, Throwable cause) {
    super(format(source, line, field, problem), cause);
    this.source = source;
    this.line = line;
    this.field = field;
    this.problem = problem;
  }

  private static String format(String source, int line, String field, String problem) {
    StringBuilder b = new StringBuilder(source);
    if (line > 0) {
      b.append(':').append(line);
    }
    b.append(": ");
    if (field != null) {
      b.append(field).append(": ");
    }
    return b.append(problem).toString();
  }

  /** The configuration file (or key file) name. */
  public String source() {
    return source;
  }

  /** The 1-based line number, or 0 if the problem is not on one line. */
  public int line() {
    return line;
  }

  /** The configuration key concerned, if any. */
  public Optional<String> field() {
    return Optional.ofNullable(field);
  }

  /** The problem without the location. */
  public String problem() {
    return problem;
  }
}
