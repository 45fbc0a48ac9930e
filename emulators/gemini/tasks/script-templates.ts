/**
 * Sentence templates the emulated model writes voice-overs from. `{topic}` is the trend title as
 * given, `{Topic}` the same with a capital first letter, `{context}` the one-line context
 * without closing punctuation, `{context_sentence}` the context as a sentence (or nothing).
 * Hooks are written so that the hook audit heuristic (hook-audit.ts) passes most but not all of
 * them, as a real model's candidates would.
 */

export interface ScriptTemplates {
  hooks: readonly string[];
  contextLines: readonly string[];
  /** Used instead of a context line when the prompt has no CONTEXT. */
  noContext: readonly string[];
  body: readonly string[];
  why: readonly string[];
  closers: readonly string[];
  titles: readonly string[];
  descriptions: readonly string[];
  hashtags: readonly string[];
}

export const ENGLISH: ScriptTemplates = {
  hooks: [
    "Did you know the story of {topic} is changing faster than most people realise?",
    "Here are 3 things about {topic} that nobody tells you.",
    "What if everything you knew about {topic} was only half the story?",
    "The story of {topic} just got a lot more interesting, and here is why.",
    "In 60 seconds, you will understand why everyone is talking about {topic}.",
    "Why is everyone suddenly searching for {topic}?",
    "You have probably heard about {topic}, but have you heard the real story?",
  ],
  contextLines: [
    "Here is what is going on: {context}.",
    "The short version is this: {context}.",
    "It all starts with one piece of news: {context}.",
    "The headline in one line: {context}.",
  ],
  noContext: [
    "It is one of the most searched topics today, and the reasons are more interesting than the headlines suggest.",
    "Search interest has jumped today, and there is a good reason so many people are curious right now.",
  ],
  body: [
    "Most people only see the headline, but the real story behind {topic} is in the small details that add up over time.",
    "Experts point out that the interest in {topic} did not appear overnight; it builds on years of quiet work that rarely makes the news.",
    "The interesting part is how quickly {topic} moved from a niche conversation to something millions of people look up.",
    "If you look closely, there are links between {topic} and everyday life that are easy to miss, from the way we shop to the way we learn.",
    "There is also a lot of confusion, so it helps to separate what is confirmed about {topic} from what is still guesswork.",
    "One useful way to think about {topic} is to ask who benefits, what it costs, and what changes for ordinary people next.",
    "Search numbers tell part of the story, because interest in {topic} has climbed sharply, and that usually means something real has shifted.",
    "Of course, not everyone agrees, and the debate around {topic} is a good reminder to check sources before sharing anything.",
  ],
  why: [
    "The bottom line is that it pays to understand {topic} now, before everyone assumes you already know about it.",
    "What matters most is that the interest in {topic} is not just a passing trend; it is a signal of where things are heading next.",
    "So the next time someone brings up {topic}, you will know the part of the story that most people skip.",
  ],
  closers: [
    "Follow for more quick explainers, and tell me in the comments what you want to know next.",
    "Save this video so you can come back to it, and share it with someone who would find it useful.",
    "If this helped, follow along, because there is a lot more to unpack in the next one.",
  ],
  titles: [
    "{Topic}: what you need to know",
    "The real story behind {topic}",
    "{Topic}, explained in one minute",
    "Why everyone is talking about {topic}",
  ],
  descriptions: [
    "A one-minute explainer on {topic}. {context_sentence}",
    "Everything you need to know about {topic}, in under a minute. {context_sentence}",
  ],
  hashtags: ["#explained", "#didyouknow", "#learnsomething", "#shorts"],
};

const INDONESIAN: ScriptTemplates = {
  hooks: [
    "Tahukah kamu bahwa {topic} berubah lebih cepat dari yang kita kira?",
    "Ini 3 hal tentang {topic} yang jarang kamu dengar.",
    "Bagaimana kalau yang kamu tahu tentang {topic} ternyata baru separuh cerita?",
    "{Topic} sedang ramai dibicarakan, dan ini alasannya.",
    "Dalam 60 detik, kamu akan paham kenapa semua orang membicarakan {topic}.",
    "Kenapa tiba-tiba semua orang mencari {topic}?",
    "Kamu pasti pernah dengar soal {topic}, tapi sudah tahu cerita lengkapnya?",
  ],
  contextLines: [
    "Singkatnya begini: {context}.",
    "Ceritanya berawal dari kabar ini: {context}.",
    "Kabar terbarunya dalam satu kalimat: {context}.",
    "Ini yang sedang terjadi: {context}.",
  ],
  noContext: [
    "Topik ini termasuk yang paling banyak dicari hari ini, dan alasannya lebih menarik daripada judul beritanya.",
    "Pencarian tentang topik ini melonjak hari ini, dan ada alasan kuat kenapa banyak orang penasaran.",
  ],
  body: [
    "Kebanyakan orang hanya membaca judulnya, padahal cerita sebenarnya tentang {topic} ada pada detail kecil yang sering terlewat.",
    "Para ahli menjelaskan bahwa {topic} tidak muncul begitu saja, melainkan hasil dari proses panjang yang jarang diberitakan.",
    "Yang menarik, {topic} berubah dari obrolan kecil menjadi hal yang dicari jutaan orang hanya dalam waktu singkat.",
    "Kalau diperhatikan, {topic} ternyata dekat dengan kehidupan sehari-hari, mulai dari cara kita belanja sampai cara kita belajar.",
    "Masih banyak informasi yang simpang siur, jadi penting untuk memisahkan fakta tentang {topic} dari sekadar dugaan.",
    "Salah satu cara memahami {topic} adalah bertanya siapa yang diuntungkan, berapa biayanya, dan apa yang berubah bagi kita.",
    "Angka pencarian tentang {topic} naik tajam, dan biasanya itu tanda ada sesuatu yang benar-benar berubah.",
    "Tentu tidak semua orang sepakat, dan perdebatan soal {topic} mengingatkan kita untuk selalu mengecek sumber sebelum membagikan informasi.",
  ],
  why: [
    "Intinya, {topic} layak dipahami sekarang, sebelum semua orang menganggapnya sebagai hal yang sudah biasa.",
    "Yang paling penting, {topic} bukan sekadar tren sesaat, tetapi petunjuk ke mana arah perubahan berikutnya.",
    "Jadi, lain kali {topic} dibahas, kamu sudah tahu bagian cerita yang sering dilewatkan orang.",
  ],
  closers: [
    "Ikuti akun ini untuk penjelasan singkat lainnya, dan tulis di kolom komentar apa yang ingin kamu ketahui berikutnya.",
    "Simpan video ini supaya bisa kamu tonton lagi, dan bagikan ke teman yang perlu tahu.",
    "Kalau video ini bermanfaat, ikuti terus, karena masih banyak yang akan kita bahas di video berikutnya.",
  ],
  titles: [
    "{Topic}: yang perlu kamu tahu",
    "Cerita di balik {topic}",
    "{Topic} dijelaskan dalam satu menit",
    "Kenapa semua orang membahas {topic}",
  ],
  descriptions: [
    "Penjelasan satu menit tentang {topic}. {context_sentence}",
    "Semua yang perlu kamu tahu tentang {topic}, kurang dari satu menit. {context_sentence}",
  ],
  hashtags: ["#faktaunik", "#infoterkini", "#belajarbareng", "#shorts"],
};

export const RUSSIAN: ScriptTemplates = {
  hooks: [
    "Ты знаешь, почему {topic} меняется быстрее, чем думает большинство людей?",
    "Вот 3 факта о теме «{topic}», о которых тебе почти никто не рассказывает.",
    "А что, если всё, что ты знаешь про {topic}, — это только половина истории?",
    "О теме «{topic}» сейчас говорят все, и вот почему.",
    "За 60 секунд ты поймёшь, почему все вокруг обсуждают {topic}.",
    "Почему вдруг все начали искать {topic}?",
    "Вы наверняка слышали про {topic}, но знаете ли вы всю историю?",
  ],
  contextLines: [
    "Если коротко, то дело вот в чём: {context}.",
    "Всё началось с одной новости: {context}.",
    "Главное в одной строке: {context}.",
    "Вот что происходит прямо сейчас: {context}.",
  ],
  noContext: [
    "Сегодня это одна из самых популярных тем поиска, и причины интереснее, чем кажется по заголовкам.",
    "Интерес к этой теме сегодня резко вырос, и у этого есть вполне понятная причина.",
  ],
  body: [
    "Большинство людей видят только заголовок, но настоящая история про {topic} скрыта в мелких деталях, которые легко пропустить.",
    "Эксперты отмечают, что интерес к теме «{topic}» появился не за одну ночь, а вырос из долгой и тихой работы многих людей.",
    "Самое интересное в том, как быстро {topic} превратилось из узкой темы в то, что ищут миллионы людей по всему миру.",
    "Если присмотреться, тема «{topic}» связана с повседневной жизнью сильнее, чем кажется, от покупок до того, как мы учимся.",
    "Вокруг этой темы много путаницы, поэтому полезно отделять проверенные факты про {topic} от слухов и простых догадок.",
    "Чтобы разобраться в теме «{topic}», стоит спросить, кому это выгодно, сколько это стоит и что изменится для обычных людей.",
    "Цифры поиска рассказывают часть истории: интерес к теме «{topic}» резко вырос, а это обычно значит, что что-то действительно изменилось.",
    "Конечно, согласны не все, и споры вокруг темы «{topic}» напоминают, что источники стоит проверять, прежде чем делиться новостью.",
  ],
  why: [
    "Главное, что стоит запомнить: разобраться в теме «{topic}» лучше сейчас, пока все не решили, что ты уже всё знаешь.",
    "Важнее всего то, что интерес к теме «{topic}» — это не просто мода, а знак того, куда всё движется дальше.",
    "Так что в следующий раз, когда кто-то заговорит про {topic}, ты будешь знать ту часть истории, которую многие пропускают.",
  ],
  closers: [
    "Подписывайся, чтобы не пропустить новые короткие объяснения, и напиши в комментариях, о чём рассказать дальше.",
    "Сохрани это видео, чтобы вернуться к нему позже, и отправь его тому, кому оно пригодится.",
    "Если было полезно, оставайся с нами, ведь в следующем видео мы разберём ещё больше интересного.",
  ],
  titles: [
    "{Topic}: что нужно знать",
    "Настоящая история: {topic}",
    "{Topic} за одну минуту",
    "Почему все говорят про {topic}",
  ],
  descriptions: [
    "Короткое объяснение за одну минуту: {topic}. {context_sentence}",
    "Всё, что нужно знать про {topic}, меньше чем за минуту. {context_sentence}",
  ],
  hashtags: ["#объясняем", "#интересныефакты", "#наука", "#shorts"],
};

/** Templates by primary language subtag: `ru-RU` writes with RUSSIAN. */
export const TEMPLATES_BY_LANGUAGE: Record<string, ScriptTemplates> = { en: ENGLISH, id: INDONESIAN, ru: RUSSIAN };
