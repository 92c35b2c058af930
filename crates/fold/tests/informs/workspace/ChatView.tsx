import React, { memo, useCallback, useEffect, useMemo, useState } from "react";

interface ChatViewProps {
  messages: string[];
  onSend: (text: string) => void;
  isHidden: boolean;
}

export const ChatView = ({ messages, onSend, isHidden }: ChatViewProps) => {
  const [draft, setDraft] = useState("");
  const lines = useMemo(
    () => messages.map((message) => message.trim()),
    [messages],
  );
  const placeholders = Array.from(
    { length: 3 },
    (_, index) => `row ${index}`,
  );
  const handleSend = useCallback(
    () => {
      onSend(draft);
      setDraft("");
    },
    [draft, onSend],
  );
  useEffect(() => {
    const timer = setTimeout(() => {
      setDraft("");
    }, 1000);
    return () => clearTimeout(timer);
  }, []);
  function renderLine(line: string, index: number) {
    return (
      <li key={index}>{line}</li>
    );
  }
  if (isHidden) {
    return null;
  }
  return (
    <div>
      <ul>{lines.map(renderLine)}</ul>
      <p>{placeholders.join(", ")}</p>
      <button onClick={handleSend}>Send</button>
    </div>
  );
};

export const MemoChatView = memo((props: ChatViewProps) => {
  return (
    <ChatView {...props} />
  );
});

const refreshTimer = setTimeout(
  () => {
    console.log("refresh");
  },
  5000,
);
