package io.rafestore.cli;

/**
 * A request the command cannot carry out as given (exit code {@link ExitCodes#USAGE}): an input
 * file that does not exist, a write with a read-only configuration. The message is shown alone, as
 * one line.
 */
final class UsageException extends Exception {
  private static final long serialVersionUID = 1L;

  UsageException(String message) {
    super(message);
  }

  UsageException(String message, Throwable cause) {
    super(message, cause);
  }
}
