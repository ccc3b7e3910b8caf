package io.rafestore.cli;

/**
 * The exit codes of the {@code rafestore} command. Scripts may rely on them; they are listed in
 * {@code docs/cli.md}.
 */
public final class ExitCodes {
  private ExitCodes() {}

  /** The command did what was asked. */
  public static final int OK = 0;

  /**
   * The operation failed for a reason none of the other codes names: a local file could not be read
   * or written, a bucket could not be created.
   */
  public static final int FAILED = 1;

  /** Bad command-line arguments, or a configuration or key file that is missing or invalid. */
  public static final int USAGE = 2;

  /**
   * An integrity problem was found: bytes or metadata that do not verify (a read could not find
   * bytes matching the signed hash), or, for checking commands, clouds that disagree or miss
   * copies.
   */
  public static final int INTEGRITY = 3;

  /** The key or version does not exist (never written, deleted, or collected). */
  public static final int NOT_FOUND = 4;

  /**
   * Too many clouds were unreachable or failing (more than f): no quorum could be formed. Trying
   * again later may succeed; nothing is known to be wrong with the data.
   */
  public static final int UNAVAILABLE = 5;

  /** The codes of failures from most to least serious, for a command that reports several. */
  private static final int[] SERIOUSNESS = {INTEGRITY, UNAVAILABLE, FAILED, NOT_FOUND, USAGE, OK};

  /**
   * The more serious of two exit codes: an integrity failure before unavailability (data may be
   * damaged, not just out of reach), then other failures, a missing key, a usage error, success.
   */
  static int moreSerious(int a, int b) {
    for (int c : SERIOUSNESS) {
      if (a == c || b == c) {
        return c;
      }
    }
    return Math.max(a, b);
  }
}
