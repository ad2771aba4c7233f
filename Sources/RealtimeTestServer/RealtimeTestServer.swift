// Module namespace; the types of this module live in their own files.
enum RealtimeTestServerModule {}
