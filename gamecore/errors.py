"""The errors every game and the pipeline share: their messages are one line that says what to do."""


class SpecError(ValueError):
    """A bad agent, parameter or value; the message is one line naming the field and what is valid."""


class IllegalActionError(SpecError):
    """An action that the rules do not allow in the current state (the state is unchanged); the message says why."""
