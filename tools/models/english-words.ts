/**
 * Whole-word entries of the tiny models' vocabulary: frequent English words, then words common in the
 * documents this app is tested on (manuals, leases, science abstracts). Lowercase ASCII letters only.
 * Order matters (it fixes token ids), so append; never sort or reorder. Duplicates are dropped by the
 * vocabulary builder, first occurrence wins.
 */
export const ENGLISH_WORDS = `
the of and to in is it you that he was for on are with as his they be at one have this from or had by
not word but what some we can out other were all there when up use your how said an each she which do
their time if will way about many then them write would like so these her long make thing see him two
has look more day could go come did number sound no most people my over know water than call first who
may down side been now find any new work part take get place made live where after back little only
round man year came show every good me give our under name very through just form sentence great think
say help low line differ turn cause much mean before move right boy old too same tell does set three
want air well also play small end put home read hand port large spell add even land here must big high
such follow act why ask men change went light kind off need house picture try us again animal point
mother world near build self earth father head stand own page should country found answer school grow
study still learn plant cover food sun four between state keep eye never last let thought city tree
cross farm hard start might story saw far sea draw left late run while press close night real life few
north open seem together next white children begin got walk example ease paper group always music those
both mark often letter until mile river car feet care second book carry took science eat room friend
began idea fish mountain stop once base hear horse cut sure watch color face wood main enough plain girl
usual young ready above ever red list though feel talk bird soon body dog family direct pose leave song
measure door product black short class wind question happen complete ship area half rock order fire
south problem piece told knew pass since top whole king space heard best hour better true during
hundred five remember step early hold west ground interest reach fast verb sing listen six table travel
less morning ten simple several toward war lay against pattern slow center love person money serve
appear road map rain rule govern pull cold notice voice unit power town fine certain fly fall lead cry
dark machine note wait plan figure star box field rest correct able pound done beauty drive stood
contain front teach week final gave green quick develop ocean warm free minute strong special mind
behind clear tail produce fact street inch multiply nothing course stay wheel full force blue object
decide surface deep moon island foot system busy test record boat common gold possible plane dry wonder
laugh thousand ago ran check game shape hot miss brought heat snow bring yes distant fill east paint
language among
am being its our ours yours him herself himself itself themselves whose whom because although however
therefore without within across along around behind below beside beyond into onto upon per via than
yet nor either neither both every each another such same other others least more most much many few
please thank sorry hello goodbye today tomorrow yesterday week month months years days hours minutes
seconds january february march april june july august september october november december monday
friday weekend
document documents file files folder folders pdf page pages section sections chapter chapters title
text search searched searching question questions answer answered answers source sources library index
query queries result results data model models passage passages citation cite quote summary note notes
report reports manual guide table tables figures appendix contents reference references version
versions update updated install installed installation configure configuration option options setting
settings default error errors warning value values user users browser device devices network server
client password account access login security secure private privacy offline online download upload
storage memory disk cache key keys command commands package packages program programs software code
function functions input output format formats format support supported example examples line lines
character characters string strings byte bytes size name names type types list lists debian linux
shell script bash path paths directory directories process processes
lease tenant tenants landlord rent deposit payment payments contract agreement agreements policy
policies law legal rights notice period term terms fee fees month date dates signed party parties
property premises repair repairs damage insurance
cell cells protein proteins gene genes cancer risk treatment treatments disease diseases blood clinical
effect effects increase increased decrease decreased associated expression response levels level
analysis method methods evidence trial trials human humans mice mouse virus infection health age women
drug drugs therapy dose patient patients studies research significant compared control activity role
tissue brain heart lung liver bone acid cancers tumor tumour growth factor factors mutation dna rna
molecular population populations outcome outcomes mortality survival rate rates lower higher
information service services company business market price cost costs total public local general
national international government education university hospital medical health early important
different possible available following large small based using used shows show found include includes
including provide provides required require requires known given within
measured measure measures size sizes small larger smaller largest between various usually
`;
