-- How long a dimension's videos run, as the narration's word count: the script prompt asks for it
-- and the script stage refuses drafts outside it. 95-150 words is 40-60 s of speech at a normal
-- pace; the bounds keep every dimension inside what a vertical short can hold.
alter table mdame.dimensions
  add column narration_min_words integer not null default 95,
  add column narration_max_words integer not null default 150,
  add constraint dimensions_narration_words_check
    check (narration_min_words >= 60 and narration_max_words <= 180 and narration_max_words - narration_min_words >= 10);
