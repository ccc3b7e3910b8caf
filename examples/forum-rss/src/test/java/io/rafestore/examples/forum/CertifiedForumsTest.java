package io.rafestore.examples.forum;

import static org.assertj.core.api.Assertions.assertThat;

import io.rafestore.SigningKeys;
import io.rafestore.WriterCertificate;
import io.rafestore.config.KeyFiles;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Two forum server instances on the same clouds, each its own writer certified by one operator key
 * (issue 23): neither names the other's key, and each shows the other's posts.
 */
class CertifiedForumsTest {
  @TempDir Path dir;

  /** Writes forum instance {@code id}'s key, certificate and configuration; returns the file. */
  private Path instance(String id, KeyPair ops) throws Exception {
    KeyPair keys = SigningKeys.generate();
    KeyFiles.write(dir.resolve(id + ".key"), id, keys);
    Instant now = Instant.now();
    WriterCertificate cert =
        WriterCertificate.issue(
            id,
            keys.getPublic(),
            now.minus(Duration.ofMinutes(1)),
            now.plus(Duration.ofDays(1)),
            now,
            "ops",
            ops.getPrivate());
    Files.writeString(dir.resolve(id + ".cert"), cert.toText());
    StringBuilder conf =
        new StringBuilder("f = 1\n")
            .append("writer.id = ")
            .append(id)
            .append("\nwriter.key = ")
            .append(id)
            .append(".key\nwriter.certificate = ")
            .append(id)
            .append(".cert\noperator.ops = ops.pub\n")
            // A new certified writer is seen at a reader's next snapshot: every operation here.
            .append("trustRefresh = 0s\n");
    for (String c : new String[] {"a", "b", "c", "d"}) {
      conf.append("cloud.").append(c).append(".type = directory\n");
      conf.append("cloud.").append(c).append(".bucket = clouds/").append(c).append('\n');
    }
    Path file = dir.resolve(id + ".properties");
    Files.writeString(file, conf.toString());
    return file;
  }

  @Test
  void twoCertifiedInstancesReadEachOthersPosts() throws Exception {
    KeyPair ops = SigningKeys.generate();
    KeyFiles.write(dir.resolve("ops.key"), "ops", ops);
    Path a = instance("forum-a", ops);
    Path b = instance("forum-b", ops);
    try (ForumStores.Opened one = ForumStores.fromConfig(a);
        ForumStores.Opened two = ForumStores.fromConfig(b)) {
      Forum first = new Forum(one.store(), Duration.ofSeconds(30));
      Forum second = new Forum(two.store(), Duration.ofSeconds(30));
      TopicEntry topic = first.createTopic("Shared", new Post("ann", "from instance a"));
      Forum.TopicView seen = second.topicView(topic.id(), 10).orElseThrow();
      assertThat(seen.posts()).hasSize(1);
      second.post(seen.entry(), new Post("bea", "from instance b"));
      Forum.TopicView both = first.topicView(topic.id(), 10).orElseThrow();
      assertThat(both.posts())
          .extracting(p -> p.post().orElseThrow().body())
          .containsExactlyInAnyOrder("from instance a", "from instance b");
      assertThat(both.posts())
          .extracting(p -> p.info().version().writer())
          .containsExactlyInAnyOrder("forum-a", "forum-b");
    }
  }
}
