/**
 * The benchmarks: the paper reproduction harness ({@code io.rafestore.bench.paper}, which the CLI's
 * {@code rafestore bench} runs), the scale benchmark and the JMH suites. Only the paper harness is
 * exported. Never published; it runs from this repository on the class path ({@code
 * target/benchmarks.jar}, which leaves module descriptors out).
 *
 * <p>JMH and BouncyCastle are {@code requires static}: only the JMH suites use them (BouncyCastle's
 * JCA provider, beside the default signer that core itself requires), and the CLI, which bundles
 * the paper harness, leaves JMH out. {@code jdk.management} is static too: only the scale benchmark
 * reads the process's CPU time, and it runs on the class path. Three JMH suites time internal codec
 * classes (SHA-256, AEAD, Reed-Solomon): core does not export {@code io.rafestore.internal.codec},
 * so this module alone is compiled with {@code --add-exports} for it (see the pom); nothing at run
 * time depends on that, since the suites run on the class path.
 */
module io.rafestore.bench {
  exports io.rafestore.bench.paper;

  requires transitive io.rafestore;
  requires java.management;
  requires static jdk.management;
  requires static io.rafestore.cache;
  requires static jmh.core;
  requires static org.bouncycastle.provider;
}
