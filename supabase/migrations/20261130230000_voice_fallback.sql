-- The voice chain's fallback: Gemini TTS speaks a dimension's narration when Edge TTS cannot.
-- Its prebuilt voice is configuration of the dimension (null: the default for the dimension's
-- language, chosen by the pipeline), checked against the same list as the Zod contract
-- (shared/providers/tts/gemini-voices.ts).

alter table mdame.dimensions
  add column tts_fallback_voice text
    check (tts_fallback_voice is null or tts_fallback_voice in ('Achernar', 'Achird', 'Algenib', 'Algieba', 'Alnilam', 'Aoede', 'Autonoe', 'Callirrhoe', 'Charon', 'Despina', 'Enceladus', 'Erinome', 'Fenrir', 'Gacrux', 'Iapetus', 'Kore', 'Laomedeia', 'Leda', 'Orus', 'Puck', 'Pulcherrima', 'Rasalgethi', 'Sadachbia', 'Sadaltager', 'Schedar', 'Sulafat', 'Umbriel', 'Vindemiatrix', 'Zephyr', 'Zubenelgenubi'));

select mdame.restrict_function_privileges();
