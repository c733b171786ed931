"""Stage 2: a case through the agent under test. The protocol an agent implements and
the reference loop (`loop`), calling it (`call`), the script and the conversation matcher
that checks each request against it (`conversation`), the replay provider (`replay`), a
turn's time limit (`deadline`), the settings a case runs with (`settings`), and the
drive of a case's turns between the recorded boundaries (`drive`)."""
