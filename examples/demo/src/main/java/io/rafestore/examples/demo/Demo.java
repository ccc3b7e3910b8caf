package io.rafestore.examples.demo;

/**
 * The demo that {@code scripts/demo.sh} runs: RafeStore on an embedded default, with no servers and
 * no accounts. Run it with {@code scripts/demo.sh}.
 *
 * <p>Not thread-safe and not part of any API: an example application.
 */
public final class Demo {
  private Demo() {}

  /**
   * Runs the demo.
   *
   * @param args ignored for now
   */
  public static void main(String[] args) {
    System.out.println(
        "RafeStore demo: not yet available (the example application is being built);"
            + " the test command is scripts/test.sh");
  }
}
