package io.rafestore.examples.forum;

/** A request the forum refuses with 400; the message names the field and what was wrong. */
final class BadRequest extends Exception {
  private static final long serialVersionUID = 1L;

  BadRequest(String message) {
    super(message);
  }
}
