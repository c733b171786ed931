"""Mutation testing of fixtures: does each case notice the regressions it exists for?

The vacuity check proves a case fails against an empty run; this stage proves more. A
case is replayed once, then its recorded run is changed the way a regression would
change it (a call dropped, an argument altered, a file left unwritten, ...), and the
case's own checks grade each changed run, a *mutant*. A mutant the checks still pass
*survives*: the case would certify that regression.
"""
