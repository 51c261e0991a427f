{
  "targets": [
    {
      "target_name": "headroom_reactor",
      "sources": ["native/reactor.c", "native/send-ring.c", "native/spin.c"],
      "cflags": ["-O2", "-Wall", "-Wextra", "-Wpedantic", "-Wno-unused-parameter"]
    }
  ]
}
