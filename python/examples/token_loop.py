"""A token loop: model output in chunks, events out (run it: python token_loop.py)."""

from typing import Dict, List

import toolsift
from toolsift import ArgsDelta, CallFinished, CallNotReleased, CallStarted, End, Reasoning, Text

CHUNKS = [
    "<think>The user wants a file.</think>Writing it now.\n<tool_",
    'call>\n{"name": "write_file", "arguments": {"path": "hello.py", ',
    '"content": "print(\\"hi\\")\n",}}\n</tool_call>',
]


def main() -> None:
    parser = toolsift.Parser("hermes")
    arguments: Dict[int, List[str]] = {}
    for chunk in CHUNKS:
        for event in parser.push(chunk):
            match event:
                case Text(text):
                    print("text:", repr(text))
                case Reasoning(text):
                    print("reasoning:", repr(text))
                case CallStarted(index, id, name):
                    print(f"call {index} ({id}) to {name} started")
                    arguments[index] = []
                case ArgsDelta(index, fragment):
                    arguments[index].append(fragment)
                case CallFinished(index, _, name, args, repairs, _):
                    assert "".join(arguments[index]) == args
                    print(f"call {index} to {name}: {args} (repairs: {', '.join(repairs)})")
                case CallNotReleased(index, _, reason, feedback, _, _):
                    print(f"call {index} not released ({reason}): {feedback}")
    for event in parser.finish():
        if isinstance(event, End):
            print("end:", event.stop)


if __name__ == "__main__":
    main()
